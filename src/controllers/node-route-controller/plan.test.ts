import { describe, expect, test } from "bun:test";
import type { Route } from "../../cloud/provider.ts";
import type { Node, NodeAddress } from "../../kube/objects.ts";
import { parseCIDR, type CIDR } from "../../net/ip.ts";
import { kubeletNode } from "../../../test/harness/fixtures.ts";
import {
  conditionFor,
  createdKey,
  desiredCondition,
  needsConditionUpdate,
  planRoutes,
  routeAction,
  type RoutePlan,
} from "./plan.ts";

const cidrs = (...texts: string[]): CIDR[] => texts.map((t) => parseCIDR(t)!);
const CLUSTER = cidrs("10.244.0.0/16", "fd00:10::/56");

function node(name: string, podCIDRs: string[] = [], addresses: NodeAddress[] = []): Node {
  const n = kubeletNode(name, { uninitialized: false, podCIDRs: podCIDRs.length > 0 ? podCIDRs : undefined });
  n.metadata.uid = `uid-${name}`;
  n.status!.addresses = addresses;
  return n;
}

function route(targetNode: string, destinationCIDR: string, extra: Partial<Route> = {}): Route {
  return { name: `r-${targetNode}-${destinationCIDR}`, targetNode, destinationCIDR, blackhole: false, ...extra };
}

const summary = (plan: RoutePlan) => ({
  creates: plan.creates.map((c) => `${c.node.metadata.name} ${c.cidr}`).sort(),
  deletes: plan.deletes.map((r) => `${r.targetNode} ${r.destinationCIDR}`).sort(),
});

describe("planRoutes", () => {
  test.each([
    { name: "nothing", nodes: [], routes: [], want: { creates: [], deletes: [] } },
    {
      name: "a node with a pod CIDR and no route",
      nodes: [node("a", ["10.244.1.0/24"])],
      routes: [],
      want: { creates: ["a 10.244.1.0/24"], deletes: [] },
    },
    {
      name: "its route exists",
      nodes: [node("a", ["10.244.1.0/24"])],
      routes: [route("a", "10.244.1.0/24")],
      want: { creates: [], deletes: [] },
    },
    {
      name: "a node without pod CIDRs gets no route",
      nodes: [node("a")],
      routes: [],
      want: { creates: [], deletes: [] },
    },
    {
      name: "dual-stack: one route per family",
      nodes: [node("a", ["10.244.1.0/24", "fd00:10:0:1::/64"])],
      routes: [route("a", "10.244.1.0/24")],
      want: { creates: ["a fd00:10:0:1::/64"], deletes: [] },
    },
    {
      name: "node gone: its route goes",
      nodes: [],
      routes: [route("gone", "10.244.9.0/24")],
      want: { creates: [], deletes: ["gone 10.244.9.0/24"] },
    },
    {
      name: "route outside the cluster CIDRs is never touched",
      nodes: [],
      routes: [route("gone", "10.99.0.0/24"), route("x", "192.168.0.0/16", { blackhole: true })],
      want: { creates: [], deletes: [] },
    },
    {
      name: "a route straddling into the cluster CIDR counts as inside (its first or last address is)",
      nodes: [],
      routes: [route("gone", "10.244.0.0/15")],
      want: { creates: [], deletes: ["gone 10.244.0.0/15"] },
    },
    {
      name: "a supernet of the cluster CIDR does not (upstream's first/last rule)",
      nodes: [],
      routes: [route("gone", "10.0.0.0/8")],
      want: { creates: [], deletes: [] },
    },
    {
      name: "unparsable destination: left alone",
      nodes: [],
      routes: [route("gone", "not-a-cidr")],
      want: { creates: [], deletes: [] },
    },
    {
      name: "pod CIDR changed: old route out, new route in",
      nodes: [node("a", ["10.244.2.0/24"])],
      routes: [route("a", "10.244.1.0/24")],
      want: { creates: ["a 10.244.2.0/24"], deletes: ["a 10.244.1.0/24"] },
    },
    {
      name: "blackhole inside: deleted and replaced in the same pass",
      nodes: [node("a", ["10.244.1.0/24"])],
      routes: [route("a", "10.244.1.0/24", { blackhole: true })],
      want: { creates: ["a 10.244.1.0/24"], deletes: ["a 10.244.1.0/24"] },
    },
    {
      name: "route without a target inside: deleted",
      nodes: [],
      routes: [route("", "10.244.3.0/24")],
      want: { creates: [], deletes: [" 10.244.3.0/24"] },
    },
    {
      name: "IPv6 spelled differently by the provider is the same route",
      nodes: [node("a", ["fd00:10:0:1::/64"])],
      routes: [route("a", "fd00:0010:0000:0001:0000:0000:0000:0000/64")],
      want: { creates: [], deletes: [] },
    },
  ])("$name", ({ nodes, routes, want }) => {
    expect(summary(planRoutes(nodes, routes, CLUSTER))).toEqual({
      creates: [...want.creates],
      deletes: [...want.deletes],
    });
  });

  test("a route for a pod CIDR outside the cluster CIDR is created, and kept", () => {
    const n = node("a", ["172.16.0.0/24"]);
    expect(summary(planRoutes([n], [], CLUSTER)).creates).toEqual(["a 172.16.0.0/24"]);
    expect(summary(planRoutes([], [route("a", "172.16.0.0/24")], CLUSTER)).deletes).toEqual([]);
  });
});

describe("routeAction with node addresses", () => {
  const addrs: NodeAddress[] = [{ type: "InternalIP", address: "10.0.0.1" }];
  test.each([
    { name: "provider ignores addresses", r: route("a", "10.244.1.0/24", { targetNodeAddresses: [] }), want: "keep" },
    {
      name: "addresses equal",
      r: route("a", "10.244.1.0/24", { enableNodeAddresses: true, targetNodeAddresses: addrs }),
      want: "keep",
    },
    {
      name: "addresses differ",
      r: route("a", "10.244.1.0/24", {
        enableNodeAddresses: true,
        targetNodeAddresses: [{ type: "InternalIP", address: "10.0.0.2" }],
      }),
      want: "update",
    },
    { name: "no route for the CIDR", r: route("a", "10.244.2.0/24"), want: "add" },
  ])("$name → $want", ({ r, want }) => {
    expect(routeAction(node("a", ["10.244.1.0/24"], addrs), "10.244.1.0/24", [r])).toBe(want);
  });

  test("update: the stale route is deleted and a new one created", () => {
    const stale = route("a", "10.244.1.0/24", { enableNodeAddresses: true, targetNodeAddresses: [] });
    expect(summary(planRoutes([node("a", ["10.244.1.0/24"], addrs)], [stale], CLUSTER))).toEqual({
      creates: ["a 10.244.1.0/24"],
      deletes: ["a 10.244.1.0/24"],
    });
  });
});

describe("NetworkUnavailable", () => {
  const a = node("a", ["10.244.1.0/24", "fd00:10:0:1::/64"]);
  test.each([
    {
      name: "all routes in place",
      routes: [route("a", "10.244.1.0/24"), route("a", "fd00:10:0:1::/64")],
      created: [],
      want: "RouteCreated",
    },
    { name: "one missing, not created", routes: [route("a", "10.244.1.0/24")], created: [], want: "NoRouteCreated" },
    {
      name: "one missing, created in this pass",
      routes: [route("a", "10.244.1.0/24")],
      created: ["fd00:10:0:1::/64"],
      want: "RouteCreated",
    },
  ])("$name → $want", ({ routes, created, want }) => {
    const plan = planRoutes([a], routes, CLUSTER);
    const done = new Set(created.map((c) => createdKey("a", c)));
    expect(desiredCondition(a, plan, done)?.reason).toBe(want as "RouteCreated");
  });

  test("no pod CIDRs and no route: untouched; no pod CIDRs but a route: NoRouteCreated", () => {
    const bare = node("b");
    expect(desiredCondition(bare, planRoutes([bare], [], CLUSTER), new Set())).toBeUndefined();
    expect(desiredCondition(bare, planRoutes([bare], [route("b", "10.244.5.0/24")], CLUSTER), new Set())).toMatchObject(
      { status: "True", reason: "NoRouteCreated" },
    );
  });

  test.each([
    { name: "no condition yet", current: undefined, want: true },
    { name: "same status and reason", current: { status: "False" as const, reason: "RouteCreated" }, want: false },
    { name: "same status, a CNI's reason", current: { status: "False" as const, reason: "CalicoIsUp" }, want: true },
    { name: "other status", current: { status: "True" as const, reason: "NoRouteCreated" }, want: true },
  ])("write needed: $name → $want", ({ current, want }) => {
    const n = node("c");
    if (current) n.status!.conditions = [{ type: "NetworkUnavailable", ...current }];
    expect(needsConditionUpdate(n, { status: "False", reason: "RouteCreated", message: "" })).toBe(want);
  });

  test("the transition time moves only with the status", () => {
    const n = node("c");
    n.status!.conditions = [
      { type: "NetworkUnavailable", status: "False", reason: "CalicoIsUp", lastTransitionTime: "2020-01-01T00:00:00Z" },
    ];
    const kept = conditionFor(n, { status: "False", reason: "RouteCreated", message: "m" }, "2026-01-01T00:00:00Z");
    expect(kept).toMatchObject({
      reason: "RouteCreated",
      lastTransitionTime: "2020-01-01T00:00:00Z",
      lastHeartbeatTime: "2026-01-01T00:00:00Z",
    });
    const moved = conditionFor(n, { status: "True", reason: "NoRouteCreated", message: "m" }, "2026-01-01T00:00:00Z");
    expect(moved.lastTransitionTime).toBe("2026-01-01T00:00:00Z");
  });
});
