import { describe, expect, test } from "bun:test";
import type { Service } from "../../kube/objects.ts";
import { FINALIZER_LB_CLEANUP } from "../../kube/well-known.ts";
import { kubeletNode, loadBalancerService } from "../../../test/harness/fixtures.ts";
import { finalizerPatch, goneAfter, planServiceSync, statusPatch, updateFailedMessage } from "./plan.ts";

function svc(uid: string, change: (s: Service) => void = () => undefined): Service {
  const s = loadBalancerService("web", "ns");
  s.metadata.uid = uid;
  change(s);
  return s;
}

const deleting = (s: Service): void => {
  s.metadata.finalizers = [FINALIZER_LB_CLEANUP];
  s.metadata.deletionTimestamp = "2026-01-01T00:00:00Z";
};

describe("planServiceSync", () => {
  test.each([
    { name: "unknown key, nothing cached", current: undefined, remembered: undefined, want: { action: "none" } },
    { name: "new LoadBalancer Service", current: svc("a"), remembered: undefined, want: { action: "ensure" } },
    { name: "seen before, same object", current: svc("a"), remembered: svc("a"), want: { action: "ensure" } },
    {
      name: "being deleted with our finalizer",
      current: svc("a", deleting),
      remembered: svc("a"),
      want: { action: "cleanup" },
    },
    {
      name: "type changed away",
      current: svc("a", (s) => (s.spec!.type = "ClusterIP")),
      remembered: svc("a"),
      want: { action: "cleanup" },
    },
    { name: "gone; last copy wanted an LB", current: undefined, remembered: svc("a"), want: { action: "cleanupGone" } },
    {
      name: "gone; last copy was a ClusterIP",
      current: undefined,
      remembered: svc("a", (s) => (s.spec!.type = "ClusterIP")),
      want: { action: "forget" },
    },
    {
      name: "gone; classed, class not served",
      current: undefined,
      remembered: svc("a", (s) => (s.spec!.loadBalancerClass = "x.io/y")),
      want: { action: "forget" },
    },
  ])("$name → $want.action", ({ current, remembered, want }) => {
    expect(planServiceSync(current, remembered, "")).toEqual(want as ReturnType<typeof planServiceSync>);
  });

  test("recreated under the same name without our finalizer: the old LB goes first", () => {
    const old = svc("old");
    const plan = planServiceSync(svc("new"), old, "");
    expect(plan.action).toBe("ensure");
    expect(plan.deleteFirst).toBe(old);
  });

  test("recreated, the old copy never wanted an LB: nothing to delete first", () => {
    const plan = planServiceSync(
      svc("new"),
      svc("old", (s) => (s.spec!.type = "ClusterIP")),
      "",
    );
    expect(plan).toEqual({ action: "ensure" });
  });
});

describe("finalizer and status patches", () => {
  test.each([
    { name: "add", finalizers: undefined, present: true, want: { metadata: { finalizers: [FINALIZER_LB_CLEANUP] } } },
    {
      name: "add next to another",
      finalizers: ["a.io/x"],
      present: true,
      want: { metadata: { finalizers: [FINALIZER_LB_CLEANUP] } },
    },
    { name: "already there", finalizers: [FINALIZER_LB_CLEANUP], present: true, want: undefined },
    {
      name: "remove only ours",
      finalizers: ["a.io/x", FINALIZER_LB_CLEANUP],
      present: false,
      want: { metadata: { "$deleteFromPrimitiveList/finalizers": [FINALIZER_LB_CLEANUP] } },
    },
    { name: "remove when absent", finalizers: ["a.io/x"], present: false, want: undefined },
  ])("finalizer patch: $name", ({ finalizers, present, want }) => {
    const before = finalizers === undefined ? undefined : [...finalizers];
    expect(
      finalizerPatch(
        svc("a", (s) => (s.metadata.finalizers = before)),
        present,
      ),
    ).toEqual(want);
  });

  test("an empty status clears the ingress list", () => {
    expect(statusPatch({})).toEqual({ status: { loadBalancer: { ingress: null } } });
    expect(statusPatch({ ingress: [{ ip: "1.2.3.4" }] })).toEqual({
      status: { loadBalancer: { ingress: [{ ip: "1.2.3.4" }] } },
    });
  });

  test("goneAfter: deleting and no finalizer left", () => {
    expect(goneAfter(svc("a", (s) => (s.metadata.deletionTimestamp = "2026-01-01T00:00:00Z")))).toBe(true);
    expect(
      goneAfter(
        svc(
          "a",
          (s) => ((s.metadata.deletionTimestamp = "2026-01-01T00:00:00Z"), (s.metadata.finalizers = ["a.io/x"])),
        ),
      ),
    ).toBe(false);
    expect(goneAfter(svc("a"))).toBe(false);
  });

  test("UpdateLoadBalancerFailed names the first 20 nodes, sorted, and counts them all", () => {
    const nodes = Array.from({ length: 25 }, (_, i) => kubeletNode(`n${24 - i}`));
    const message = updateFailedMessage(nodes, "boom");
    expect(message).toStartWith("Error updating load balancer with new hosts [n10 n11 n12");
    expect(message).toContain("n8 n9 <5 more>]");
    expect(message).not.toContain("n4 ");
    expect(message).toEndWith("[node names limited, total number of nodes: 25], error: boom");
    expect(updateFailedMessage([kubeletNode("b"), kubeletNode("a")], "x")).toContain("hosts [a b] [node names");
  });
});
