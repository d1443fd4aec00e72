import { describe, expect, test } from "bun:test";
import { findRetryError, ImplementedElsewhereError, RetryError } from "../../cloud/errors.ts";
import type { Node, Service } from "../../kube/objects.ts";
import { WorkQueue } from "../../kube/queue.ts";
import { exponentialLimiter } from "../../kube/rate-limiters.ts";
import { FINALIZER_LB_CLEANUP, LABEL_EXCLUDE_FROM_EXTERNAL_LB } from "../../kube/well-known.ts";
import { kubeletNode, loadBalancerService } from "../../../test/harness/fixtures.ts";
import { requeueService } from "./controller.ts";
import { syncNodes } from "./node-sync.ts";
import { syncService } from "./sync.ts";
import { harness, type Harness } from "./sync.fakes.ts";
import { rejection } from "../../../test/harness/doubles.ts";

const KEY = "ns/web";

function addService(h: Harness, change: (s: Service) => void = () => undefined): Service {
  const s = loadBalancerService("web", "ns");
  s.metadata.uid = "uid-web";
  s.metadata.resourceVersion = "1";
  change(s);
  h.services.set(KEY, s);
  return s;
}

function addNode(h: Harness, name: string, change: (n: Node) => void = () => undefined): void {
  const n = kubeletNode(name, { uninitialized: false, providerID: `fake://${name}` });
  change(n);
  h.nodes.set(name, n);
}

const reasons = (h: Harness): string[] => h.events.map((e) => e.reason);
const methods = (h: Harness): string[] => h.calls.map((c) => c.method);

describe("syncService: ensure", () => {
  test("finalizer first, then EnsureLoadBalancer with the filtered nodes, then status; a second sync writes nothing", async () => {
    const h = harness();
    addNode(h, "a");
    addNode(h, "b", (n) => (n.metadata.labels![LABEL_EXCLUDE_FROM_EXTERNAL_LB] = "true"));
    addService(h);
    await syncService(h.deps, KEY);
    expect(h.writes.map((w) => [w.subresource, Object.keys(w.patch ?? {})[0]])).toEqual([
      ["status", "metadata"],
      ["status", "status"],
    ]);
    expect(h.writes[0]!.patch).toEqual({ metadata: { finalizers: [FINALIZER_LB_CLEANUP] } });
    expect(h.calls).toEqual([{ method: "ensure", service: "web", nodes: ["a"] }]);
    expect(h.services.get(KEY)?.status?.loadBalancer?.ingress).toEqual([{ ip: "203.0.113.7" }]);
    expect(reasons(h)).toEqual(["EnsuringLoadBalancer", "EnsuredLoadBalancer"]);

    await syncService(h.deps, KEY);
    expect(h.writes).toHaveLength(2);
    expect(methods(h)).toEqual(["ensure", "ensure"]);
  });

  test("no available nodes: a Warning, and EnsureLoadBalancer is still called", async () => {
    const h = harness();
    addService(h);
    await syncService(h.deps, KEY);
    expect(h.events.find((e) => e.reason === "UnAvailableLoadBalancer")).toMatchObject({
      type: "Warning",
      message: "There are no available nodes for LoadBalancer",
    });
    expect(methods(h)).toEqual(["ensure"]);
  });

  test("provider warnings become Warning events with their reason", async () => {
    const h = harness({
      ensureLoadBalancer: () =>
        Promise.resolve({
          status: { ingress: [{ ip: "1.2.3.4" }] },
          warnings: [{ reason: "UnsupportedAnnotation", message: "ignored x" }],
        }),
    });
    addService(h);
    await syncService(h.deps, KEY);
    expect(h.events).toContainEqual({
      object: "web",
      type: "Warning",
      reason: "UnsupportedAnnotation",
      message: "ignored x",
    });
  });

  test("ImplementedElsewhere: finalizer added, no status write, no EnsuredLoadBalancer", async () => {
    const h = harness({
      ensureLoadBalancer: () => Promise.reject(new ImplementedElsewhereError()),
      getLoadBalancer: () => Promise.resolve({ exists: false, status: {} }),
    });
    addNode(h, "a");
    addService(h);
    await syncService(h.deps, KEY);
    expect(h.services.get(KEY)?.metadata.finalizers).toEqual([FINALIZER_LB_CLEANUP]);
    expect(h.writes).toHaveLength(1);
    expect(reasons(h)).toEqual(["EnsuringLoadBalancer"]);
  });

  test("a provider error: SyncLoadBalancerFailed, rethrown; a wrapped RetryError survives", async () => {
    const h = harness({ ensureLoadBalancer: () => Promise.reject(new RetryError("still provisioning", 1500)) });
    addService(h);
    const error = await syncService(h.deps, KEY).catch((e: unknown) => e);
    expect(findRetryError(error)?.retryAfterMs).toBe(1500);
    expect(h.events.at(-1)).toMatchObject({
      type: "Warning",
      reason: "SyncLoadBalancerFailed",
      message: "Error syncing load balancer: failed to ensure load balancer: still provisioning",
    });
    expect(h.services.get(KEY)?.metadata.finalizers).toEqual([FINALIZER_LB_CLEANUP]);
  });

  test("no status from EnsureLoadBalancer: upstream's words, no Ensured event, no status written", async () => {
    const h = harness({ ensureLoadBalancer: () => Promise.resolve(undefined as never) });
    addService(h);
    expect(await syncService(h.deps, KEY).catch((e: unknown) => (e as Error).message)).toBe(
      "service status returned by EnsureLoadBalancer is nil",
    );
    expect(h.events.at(-1)).toMatchObject({
      reason: "SyncLoadBalancerFailed",
      message: "Error syncing load balancer: service status returned by EnsureLoadBalancer is nil",
    });
    expect(reasons(h)).not.toContain("EnsuredLoadBalancer");
    expect(h.services.get(KEY)?.status?.loadBalancer?.ingress).toBeUndefined();
  });

  test("finalizer writes touch only our entry: another client's finalizer survives add and remove", async () => {
    const h = harness();
    addService(h);
    const stale = structuredClone(h.services.get(KEY)!);
    h.services.set(KEY, { ...stale, metadata: { ...stale.metadata, finalizers: ["other.io/x"] } });
    const deps = { ...h.deps, services: { ...h.deps.services, get: () => stale } };
    await syncService(deps, KEY);
    expect(h.services.get(KEY)?.metadata.finalizers).toEqual(["other.io/x", FINALIZER_LB_CLEANUP]);
    h.services.get(KEY)!.spec!.type = "ClusterIP";
    await syncService(h.deps, KEY);
    expect(h.services.get(KEY)?.metadata.finalizers).toEqual(["other.io/x"]);
  });
});

describe("syncService: cleanup", () => {
  const deleting = (s: Service): void => {
    s.metadata.finalizers = [FINALIZER_LB_CLEANUP];
    s.metadata.deletionTimestamp = "2026-01-01T00:00:00Z";
  };

  test("deletion: delete the LB, then drop the finalizer; the Service is gone so no status write", async () => {
    const h = harness();
    addService(h, deleting);
    await syncService(h.deps, KEY);
    expect(methods(h)).toEqual(["get", "delete"]);
    expect(reasons(h)).toEqual(["DeletingLoadBalancer", "DeletedLoadBalancer"]);
    expect(h.writes).toHaveLength(1);
    expect(h.services.has(KEY)).toBe(false);
  });

  test("GetLoadBalancer says gone but our finalizer is on (a delete cut short): delete again anyway", async () => {
    const h = harness({ getLoadBalancer: () => Promise.resolve({ exists: false, status: {} }) });
    addService(h, deleting);
    await syncService(h.deps, KEY);
    expect(methods(h)).toEqual(["get", "delete"]);
    expect(reasons(h)).toEqual(["DeletedLoadBalancer"]);
    expect(h.services.has(KEY)).toBe(false);
  });

  test("the delete fails: finalizer kept, SyncLoadBalancerFailed", async () => {
    const h = harness({ ensureLoadBalancerDeleted: () => Promise.reject(new Error("cloud says no")) });
    addService(h, deleting);
    expect((await rejection(syncService(h.deps, KEY))).message).toBe("failed to delete load balancer: cloud says no");
    expect(h.services.get(KEY)?.metadata.finalizers).toEqual([FINALIZER_LB_CLEANUP]);
    expect(reasons(h)).toContain("SyncLoadBalancerFailed");
  });

  test("type changed away: LB deleted, finalizer removed, status cleared", async () => {
    const h = harness();
    addService(h, (s) => {
      s.metadata.finalizers = [FINALIZER_LB_CLEANUP];
      s.spec!.type = "ClusterIP";
      s.status = { loadBalancer: { ingress: [{ ip: "203.0.113.7" }] } };
    });
    await syncService(h.deps, KEY);
    expect(methods(h)).toEqual(["get", "delete"]);
    const svc = h.services.get(KEY)!;
    expect(svc.metadata.finalizers).toEqual([]);
    expect(svc.status?.loadBalancer?.ingress).toBeUndefined();
  });

  test("gone without our finalizer: the last copy's LB is deleted; a failure warns with DeleteLoadBalancerFailed", async () => {
    let fail = true;
    const h = harness({
      ensureLoadBalancerDeleted: async () => (fail ? Promise.reject(new Error("timeout")) : undefined),
    });
    addService(h);
    await syncService(h.deps, KEY);
    h.services.delete(KEY);
    expect((await rejection(syncService(h.deps, KEY))).message).toBe("timeout");
    expect(h.events.at(-1)).toMatchObject({
      reason: "DeleteLoadBalancerFailed",
      message: "Error deleting load balancer: timeout",
    });
    fail = false;
    await syncService(h.deps, KEY);
    expect(reasons(h).slice(-2)).toEqual(["DeletingLoadBalancer", "DeletedLoadBalancer"]);
    h.calls.length = 0;
    await syncService(h.deps, KEY);
    expect(h.calls).toEqual([]);
  });

  test("recreated with another UID: the old LB is deleted before the new one is ensured", async () => {
    const h = harness();
    addService(h);
    await syncService(h.deps, KEY);
    addService(h, (s) => (s.metadata.uid = "uid-new"));
    h.calls.length = 0;
    await syncService(h.deps, KEY);
    expect(methods(h)).toEqual(["delete", "ensure"]);
  });
});

describe("syncNodes", () => {
  test("UpdateLoadBalancer only when the filtered node set changed", async () => {
    const h = harness();
    addNode(h, "a");
    addService(h);
    await syncService(h.deps, KEY);
    h.calls.length = 0;
    await syncNodes(h.deps);
    expect(h.calls).toEqual([]);
    addNode(h, "b");
    await syncNodes(h.deps);
    expect(h.calls).toEqual([{ method: "update", service: "web", nodes: ["a", "b"] }]);
    expect(reasons(h).at(-1)).toBe("UpdatedLoadBalancer");
    h.nodes.delete("a");
    h.nodes.delete("b");
    await syncNodes(h.deps);
    expect(h.calls.at(-1)).toEqual({ method: "update", service: "web", nodes: [] });
    expect(h.events.at(-1)).toMatchObject({ type: "Warning", reason: "UnAvailableLoadBalancer" });
  });

  test("each Service of a pass is updated with the node set as it is when its turn comes", async () => {
    let release = (): void => undefined;
    const blocked = new Promise<void>((resolve) => (release = resolve));
    const h = harness({ updateLoadBalancer: (_c, s) => (s.metadata.name === "web" ? blocked : Promise.resolve()) });
    addNode(h, "a");
    addService(h);
    const api = loadBalancerService("api", "ns");
    api.metadata.uid = "uid-api";
    h.services.set("ns/api", api);
    await syncService(h.deps, KEY);
    await syncService(h.deps, "ns/api");
    h.calls.length = 0;
    addNode(h, "b");
    const pass = syncNodes({ ...h.deps, workers: 1 });
    await Bun.sleep(5);
    addNode(h, "c");
    release();
    await pass;
    expect(h.calls).toEqual([
      { method: "update", service: "web", nodes: ["a", "b"] },
      { method: "update", service: "api", nodes: ["a", "b", "c"] },
    ]);
  });

  test("ImplementedElsewhere from Update: success without an event, the new set is recorded", async () => {
    const h = harness({ updateLoadBalancer: () => Promise.reject(new ImplementedElsewhereError()) });
    addNode(h, "a");
    addService(h);
    await syncService(h.deps, KEY);
    addNode(h, "b");
    await syncNodes(h.deps);
    await syncNodes(h.deps);
    expect(methods(h)).toEqual(["ensure", "update"]);
    expect(reasons(h)).toEqual(["EnsuringLoadBalancer", "EnsuredLoadBalancer"]);
    expect(h.resynced).toEqual([]);
  });

  test("an Update failure warns and hands the Service back for a full sync", async () => {
    const h = harness({ updateLoadBalancer: () => Promise.reject(new Error("backend pool busy")) });
    addNode(h, "a");
    addService(h);
    await syncService(h.deps, KEY);
    addNode(h, "b");
    await syncNodes(h.deps);
    expect(h.events.at(-1)).toMatchObject({ reason: "UpdateLoadBalancerFailed" });
    expect(h.events.at(-1)?.message).toContain(
      "[a b] [node names limited, total number of nodes: 2], error: backend pool busy",
    );
    expect(h.resynced).toEqual([KEY]);
    expect((await h.deps.metrics.nodeSyncErrors.get()).values[0]?.value).toBe(1);
    expect(
      (await h.deps.metrics.updateHostLatency.get()).values.find((v) => v.metricName?.endsWith("_count"))?.value,
    ).toBe(1);
  });

  test("an Update failure for a load balancer gone meanwhile: no error counted, no warning, a full sync", async () => {
    const h = harness({
      updateLoadBalancer: () => Promise.reject(new Error("not found")),
      getLoadBalancer: () => Promise.resolve({ exists: false, status: {} }),
    });
    addNode(h, "a");
    addService(h);
    await syncService(h.deps, KEY);
    addNode(h, "b");
    await syncNodes(h.deps);
    expect(reasons(h)).not.toContain("UpdateLoadBalancerFailed");
    expect((await h.deps.metrics.nodeSyncErrors.get()).values[0]?.value ?? 0).toBe(0);
    expect(h.resynced).toEqual([KEY]);
  });

  test("without a load balancer in place the pass does not list Nodes", async () => {
    const h = harness();
    addNode(h, "a");
    addService(h);
    let listed = 0;
    const deps = { ...h.deps, lbNodes: () => (listed++, h.deps.lbNodes()) };
    await syncNodes(deps);
    expect(listed).toBe(0);
    await syncService(h.deps, KEY);
    addNode(h, "b");
    await syncNodes(deps);
    expect(listed).toBe(1);
    expect(h.calls.at(-1)).toEqual({ method: "update", service: "web", nodes: ["a", "b"] });
  });

  test("Services never ensured, or being deleted, are left to the service queue", async () => {
    const h = harness();
    addNode(h, "a");
    addService(h);
    await syncNodes(h.deps);
    expect(h.calls).toEqual([]);
    await syncService(h.deps, KEY);
    h.services.get(KEY)!.metadata.deletionTimestamp = "2026-01-01T00:00:00Z";
    addNode(h, "b");
    h.calls.length = 0;
    await syncNodes(h.deps);
    expect(h.calls).toEqual([]);
  });

  test("an Update waits for an Ensure of the same Service in flight (kubernetes/kubernetes#100846)", async () => {
    const control = { gate: Promise.resolve(), release: (): void => undefined };
    let ensuring = false;
    const order: string[] = [];
    const h = harness({
      ensureLoadBalancer: async () => {
        ensuring = true;
        await control.gate;
        order.push("ensure done");
        ensuring = false;
        return { status: { ingress: [{ ip: "1.2.3.4" }] } };
      },
      updateLoadBalancer: () => {
        order.push(ensuring ? "update during ensure" : "update");
        return Promise.resolve();
      },
    });
    addNode(h, "a");
    addService(h);
    await syncService(h.deps, KEY);
    control.gate = new Promise<void>((resolve) => (control.release = resolve));
    const ensure = h.deps.lock.withLock(KEY, () => syncService(h.deps, KEY));
    await Bun.sleep(5);
    addNode(h, "b");
    const nodeSync = syncNodes(h.deps);
    await Bun.sleep(20);
    control.release();
    await Promise.all([ensure, nodeSync]);
    expect(order).toEqual(["ensure done", "ensure done", "update"]);
  });
});

describe("requeueService", () => {
  test("RetryError: added after its delay, the exponential counter untouched; other errors back off", async () => {
    const queue = new WorkQueue({ name: "service", rateLimiter: exponentialLimiter(5_000, 300_000) });
    requeueService(queue, "ns/a", new Error("wrapped", { cause: new RetryError("later", 20) }));
    expect(queue.numRequeues("ns/a")).toBe(0);
    await Bun.sleep(60);
    expect(queue.length).toBe(1);
    requeueService(queue, "ns/b", new Error("plain"));
    expect(queue.numRequeues("ns/b")).toBe(1);
    expect(queue.length).toBe(1);
    queue.shutDown();
  });
});
