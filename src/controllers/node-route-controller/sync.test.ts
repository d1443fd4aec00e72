import { describe, expect, test } from "bun:test";
import type { Routes } from "../../cloud/provider.ts";
import { NODES } from "../../kube/api.ts";
import type { Node } from "../../kube/objects.ts";
import { createLogger } from "../../log/logger.ts";
import { createMetrics } from "../../metrics/metrics.ts";
import { parseCIDR } from "../../net/ip.ts";
import { realClock } from "../../util/clock.ts";
import { FakeCloud, parseFakeConfig } from "../../../providers/fake/index.ts";
import { createFakeProvider } from "../../../providers/fake/provider.ts";
import { fakeKubeApi } from "../../../test/harness/fake-kube-api.ts";
import { kubeletNode } from "../../../test/harness/fixtures.ts";
import { testProviderContext } from "../../../test/harness/provider-context.ts";
import { mapLister, recordingRecorder, rejection, type RecordedEvent } from "../../../test/harness/doubles.ts";
import { PendingConditions } from "./pending-conditions.ts";
import { RouteView } from "./route-view.ts";
import { reconcileRoutes, type RouteSyncDeps } from "./sync.ts";

interface ConditionWrite {
  readonly node: string;
  readonly reason: string;
}

function setup(wrap: (routes: Routes) => Routes = (r) => r) {
  const parsed = parseFakeConfig("autoInstances: true");
  if (!parsed.ok) throw new Error(parsed.errors.join("; "));
  const engine = new FakeCloud(parsed.config);
  const provider = createFakeProvider({ config: parsed.config, path: "" }, testProviderContext(), engine);
  const api = fakeKubeApi();
  const nodes = api.store<Node>(NODES);
  const events: RecordedEvent[] = [];
  const deps: RouteSyncDeps = {
    api,
    nodes: mapLister(nodes),
    routes: wrap(provider.routes!),
    view: new RouteView(),
    pending: new PendingConditions(realClock, 10_000),
    clusterName: "kubernetes",
    clusterCidrs: [parseCIDR("10.244.0.0/16")!, parseCIDR("fd00:10::/56")!],
    recorder: recordingRecorder(events),
    logger: createLogger({ verbosity: 0, format: "text", write: () => undefined }),
    clock: realClock,
    metrics: createMetrics(),
  };
  const addNode = (name: string, podCIDRs: string[]): void => {
    const n = kubeletNode(name, { uninitialized: false, podCIDRs });
    n.metadata.uid = `uid-${name}`;
    nodes.set(name, n);
  };
  const cidrsOf = (name: string): string[] =>
    engine
      .routes()
      .filter((r) => r.targetNode === name)
      .map((r) => r.destinationCIDR)
      .sort();
  /** The NetworkUnavailable condition writes, in order. */
  const conditions = (): ConditionWrite[] =>
    api.writes.map((w) => ({
      node: w.name,
      reason: (w.patch as { status: { conditions: { reason: string }[] } }).status.conditions[0]!.reason,
    }));
  return { engine, deps, nodes, conditions, events, addNode, cidrsOf };
}

describe("reconcileRoutes", () => {
  test("a full reconcile creates one route per pod CIDR and marks the nodes' network available", async () => {
    const s = setup();
    s.addNode("a", ["10.244.1.0/24", "fd00:10:0:1::/64"]);
    s.addNode("bare", []);
    await reconcileRoutes(s.deps, true);
    expect(s.cidrsOf("a")).toEqual(["10.244.1.0/24", "fd00:10:0:1::/64"]);
    expect(s.conditions()).toEqual([{ node: "a", reason: "RouteCreated" }]);
    expect(s.engine.calls()).toMatchObject({ ListRoutes: 1, CreateRoute: 2 });
    expect((await s.deps.metrics.routeSyncs.get()).values[0]?.value).toBe(1);
  });

  test("node events are answered from the view: no listing, and our own routes can be deleted again", async () => {
    const s = setup();
    s.addNode("a", ["10.244.1.0/24"]);
    await reconcileRoutes(s.deps, true);
    await reconcileRoutes(s.deps, false);
    // Only a sync with the cloud counts, as upstream's (its passes all list).
    expect((await s.deps.metrics.routeSyncs.get()).values[0]?.value).toBe(1);
    s.addNode("b", ["10.244.2.0/24"]);
    await reconcileRoutes(s.deps, false);
    expect(s.cidrsOf("b")).toEqual(["10.244.2.0/24"]);
    s.nodes.delete("b");
    await reconcileRoutes(s.deps, false);
    expect(s.cidrsOf("b")).toEqual([]);
    expect(s.engine.calls().ListRoutes).toBe(1);
  });

  test("before the first listing a node event does nothing", async () => {
    const s = setup();
    s.addNode("a", ["10.244.1.0/24"]);
    await reconcileRoutes(s.deps, false);
    expect(s.engine.calls()).toEqual({});
  });

  test("a provider that does not name created routes: their deletion waits for the next listing", async () => {
    const s = setup((routes) => ({
      ...routes,
      createRoute: async (...args) => void (await routes.createRoute(...args)),
    }));
    await reconcileRoutes(s.deps, true);
    s.addNode("b", ["10.244.2.0/24"]);
    await reconcileRoutes(s.deps, false);
    s.nodes.delete("b");
    await reconcileRoutes(s.deps, false);
    expect(s.cidrsOf("b")).toEqual(["10.244.2.0/24"]);
    await reconcileRoutes(s.deps, true);
    expect(s.cidrsOf("b")).toEqual([]);
  });

  test("blackholes inside the cluster CIDRs go; routes outside are never touched", async () => {
    const s = setup();
    s.engine.putRoute({
      name: "foreign",
      clusterName: "kubernetes",
      targetNode: "elsewhere",
      destinationCIDR: "10.99.0.0/24",
      blackhole: false,
    });
    s.engine.putRoute({
      name: "dead",
      clusterName: "kubernetes",
      targetNode: "x",
      destinationCIDR: "10.244.9.0/24",
      blackhole: true,
    });
    await reconcileRoutes(s.deps, true);
    expect(s.engine.routes().map((r) => r.name)).toEqual(["foreign"]);
  });

  test("a failed create: FailedToCreateRoute on the node, NoRouteCreated, and the reconcile fails", async () => {
    const s = setup((routes) => ({ ...routes, createRoute: () => Promise.reject(new Error("quota exceeded")) }));
    s.addNode("a", ["10.244.1.0/24"]);
    expect((await rejection(reconcileRoutes(s.deps, true))).message).toStartWith("1 route operation(s) failed");
    expect(s.events).toHaveLength(1);
    expect(s.events[0]).toMatchObject({ object: "a", type: "Warning", reason: "FailedToCreateRoute" });
    expect(s.events[0]!.message).toMatch(
      /^Could not create route uid-a 10\.244\.1\.0\/24 for node a after \d+ms: quota exceeded$/,
    );
    expect(s.conditions()).toEqual([{ node: "a", reason: "NoRouteCreated" }]);
  });

  test("a condition that already says RouteCreated is not written again", async () => {
    const s = setup();
    s.addNode("a", ["10.244.1.0/24"]);
    s.nodes.get("a")!.status!.conditions = [{ type: "NetworkUnavailable", status: "False", reason: "RouteCreated" }];
    await reconcileRoutes(s.deps, true);
    expect(s.conditions()).toEqual([]);
  });
});

describe("conditions written but not yet shown by the watch", () => {
  test("a reconcile before the watch shows our write does not write it again; one after it shows does", async () => {
    const s = setup();
    s.addNode("a", ["10.244.1.0/24"]);
    const before = structuredClone(s.nodes.get("a")!);
    await reconcileRoutes(s.deps, true);
    const written = s.nodes.get("a")!;
    s.nodes.set("a", before);
    await reconcileRoutes(s.deps, false);
    expect(s.conditions()).toEqual([{ node: "a", reason: "RouteCreated" }]);
    s.deps.pending.seen(written);
    expect(s.deps.pending.size).toBe(0);
    // Someone removed the condition after our write: it is written again.
    await reconcileRoutes(s.deps, false);
    expect(s.conditions()).toEqual([
      { node: "a", reason: "RouteCreated" },
      { node: "a", reason: "RouteCreated" },
    ]);
  });

  test("a pass whose snapshot predates our write, shown by the cache while it ran, does not write it again", async () => {
    let whileCreating = (): void => undefined;
    const s = setup((routes) => ({
      ...routes,
      createRoute: (...args) => (whileCreating(), routes.createRoute(...args)),
    }));
    s.addNode("a", ["10.244.1.0/24"]);
    const before = structuredClone(s.nodes.get("a")!);
    await reconcileRoutes(s.deps, true);
    const written = s.nodes.get("a")!;
    s.nodes.set("a", before);
    s.addNode("b", ["10.244.2.0/24"]);
    whileCreating = () => {
      s.nodes.set("a", written);
      s.deps.pending.seen(written);
    };
    await reconcileRoutes(s.deps, false);
    expect(s.conditions()).toEqual([
      { node: "a", reason: "RouteCreated" },
      { node: "b", reason: "RouteCreated" },
    ]);
  });
});
