import { describe, expect, test } from "bun:test";
import { NODES, SERVICES } from "../../src/kube/api.ts";
import type { Node, Service } from "../../src/kube/objects.ts";
import { KubeApiError } from "../../src/kube/transport.ts";
import { fakeKubeApi } from "./fake-kube-api.ts";

const service = (finalizers: string[], deleting = false): Service => ({
  metadata: {
    name: "web",
    namespace: "default",
    uid: "u1",
    finalizers,
    ...(deleting ? { deletionTimestamp: "2026-01-01T00:00:00Z" } : {}),
  },
  spec: { type: "LoadBalancer" },
});

describe("fakeKubeApi", () => {
  test("strategic finalizer patches add and remove only the named entry; writes are recorded with their bodies", async () => {
    const api = fakeKubeApi();
    api.put(SERVICES, service(["example.com/other"]));
    await api.patch(
      SERVICES,
      "web",
      { metadata: { finalizers: ["ours"] } },
      { namespace: "default", type: "strategic" },
    );
    expect(api.store<Service>(SERVICES).get("default/web")?.metadata.finalizers).toEqual(["example.com/other", "ours"]);
    await api.patch(
      SERVICES,
      "web",
      { metadata: { "$deleteFromPrimitiveList/finalizers": ["ours"] } },
      { namespace: "default", type: "strategic" },
    );
    expect(api.stored(SERVICES, "web", "default")?.metadata.finalizers).toEqual(["example.com/other"]);
    expect(api.writes.map((w) => [w.verb, w.resource, w.name, Object.keys(w.patch ?? {})])).toEqual([
      ["PATCH", "services", "web", ["metadata"]],
      ["PATCH", "services", "web", ["metadata"]],
    ]);
  });

  test("an object being deleted goes with its last finalizer", async () => {
    const api = fakeKubeApi();
    api.put(SERVICES, service(["ours"], true));
    await api.patch(
      SERVICES,
      "web",
      { metadata: { "$deleteFromPrimitiveList/finalizers": ["ours"] } },
      { namespace: "default", type: "strategic" },
    );
    expect(api.store(SERVICES).size).toBe(0);
  });

  test("strategic condition patches merge by type; merge patches replace lists", async () => {
    const api = fakeKubeApi();
    const ready = { type: "Ready", status: "True" as const };
    api.put(NODES, { metadata: { name: "a" }, status: { conditions: [ready] } } satisfies Node);
    const unavailable = { type: "NetworkUnavailable", status: "False" as const, reason: "RouteCreated" };
    await api.patch(
      NODES,
      "a",
      { status: { conditions: [unavailable] } },
      { subresource: "status", type: "strategic" },
    );
    expect((api.stored(NODES, "a") as Node).status?.conditions).toEqual([ready, unavailable]);
    await api.patch(NODES, "a", { status: { conditions: [ready] } }, { subresource: "status", type: "merge" });
    expect((api.stored(NODES, "a") as Node).status?.conditions).toEqual([ready]);
    expect(api.requests).toEqual(["PATCH nodes/status a", "PATCH nodes/status a"]);
  });

  test("a stale resourceVersion is a 409 Conflict and writes nothing", async () => {
    const api = fakeKubeApi();
    const stored = api.put<Node>(NODES, { metadata: { name: "a", labels: { x: "1" } } });
    await api.patch(NODES, "a", { metadata: { labels: { x: "2" } } }, { type: "merge" });
    const stale = { metadata: { resourceVersion: stored.metadata.resourceVersion, labels: { x: "3" } } };
    await expect(api.patch(NODES, "a", stale, { type: "merge" })).rejects.toMatchObject({ status: 409 });
    expect(api.stored(NODES, "a")?.metadata.labels).toEqual({ x: "2" });
  });

  test("failNext fails one matching request; a delete with the wrong UID is refused", async () => {
    const api = fakeKubeApi();
    api.put(NODES, { metadata: { name: "a", uid: "u1" } });
    api.failNext(/DELETE/, new KubeApiError(500, "InternalError", "etcd timed out"));
    await expect(api.delete(NODES, "a", { preconditions: { uid: "u1" } })).rejects.toThrow("etcd timed out");
    await expect(api.delete(NODES, "a", { preconditions: { uid: "u2" } })).rejects.toMatchObject({ status: 409 });
    await api.delete(NODES, "a", { preconditions: { uid: "u1" } });
    expect(api.stored(NODES, "a")).toBeUndefined();
  });
});
