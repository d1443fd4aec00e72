import { describe, expect, test } from "bun:test";
import type { Service } from "../../kube/objects.ts";
import { FINALIZER_LB_CLEANUP } from "../../kube/well-known.ts";
import { loadBalancerService } from "../../../test/harness/fixtures.ts";
import { requeueEvery } from "./controller.ts";
import { needsCleanup } from "./predicates.ts";

describe("requeueEvery", () => {
  test("each period queues the Services that still need cleanup, and only those, until stopped", async () => {
    const deleting = loadBalancerService("deleting", "ns");
    deleting.metadata.finalizers = [FINALIZER_LB_CLEANUP];
    deleting.metadata.deletionTimestamp = "2026-01-01T00:00:00Z";
    const typeChanged = loadBalancerService("now-cluster-ip", "ns");
    typeChanged.metadata.finalizers = [FINALIZER_LB_CLEANUP];
    typeChanged.spec = { ...typeChanged.spec, type: "ClusterIP" };
    const served = loadBalancerService("served", "ns");
    const services: Service[] = [deleting, typeChanged, served];
    const added: string[] = [];
    const stop = requeueEvery({ list: () => services }, { add: (key) => void added.push(key) }, 20, needsCleanup);
    await Bun.sleep(50);
    stop();
    const queued = added.length;
    expect(new Set(added)).toEqual(new Set(["ns/deleting", "ns/now-cluster-ip"]));
    expect(queued).toBeGreaterThanOrEqual(4); // two periods at least
    await Bun.sleep(50);
    expect(added.length).toBe(queued);
  });

  test("a period of 0 queues nothing", async () => {
    const added: string[] = [];
    const stop = requeueEvery(
      { list: () => [loadBalancerService("web", "ns")] },
      { add: (k) => void added.push(k) },
      0,
      () => true,
    );
    await Bun.sleep(30);
    stop();
    expect(added).toEqual([]);
  });
});
