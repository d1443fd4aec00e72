import { describe, expect, test } from "bun:test";
import { fakeKubeApi } from "../../test/harness/fake-kube-api.ts";
import { NODES } from "./api.ts";
import type { Node } from "./objects.ts";
import { KubeApiError } from "./transport.ts";
import { mergePatch, patchWithPrecondition } from "./patch.ts";

describe("mergePatch (RFC 7386)", () => {
  test.each([
    { name: "objects merge", target: { a: { b: 1, c: 2 } }, patch: { a: { c: 3 } }, want: { a: { b: 1, c: 3 } } },
    { name: "null removes", target: { a: 1, b: 2 }, patch: { a: null }, want: { b: 2 } },
    { name: "lists replace", target: { l: [1, 2] }, patch: { l: [3] }, want: { l: [3] } },
    { name: "into a missing object", target: {}, patch: { a: { b: 1 } }, want: { a: { b: 1 } } },
    { name: "a non-object patch replaces", target: { a: 1 }, patch: [1], want: [1] },
  ])("$name", ({ target, patch, want }) => {
    const before = structuredClone(target);
    expect(mergePatch(target, patch)).toEqual(want);
    expect(target).toEqual(before);
  });
});

describe("patchWithPrecondition", () => {
  const cached: Node = {
    apiVersion: "v1",
    kind: "Node",
    metadata: { name: "n", uid: "u", labels: { keep: "1", drop: "2" } },
    spec: { taints: [{ key: "t", effect: "NoSchedule" }] },
  };

  test("resolves the object it was built from with the patch applied, at the written resourceVersion", async () => {
    const api = fakeKubeApi();
    const from = api.put(NODES, cached);
    const patch = { metadata: { labels: { drop: null, add: "3" } }, spec: { providerID: "fake://n", taints: [] } };
    const written = await patchWithPrecondition({ api, resource: NODES, from, build: () => patch });
    const stored = api.stored(NODES, "n") as Node;
    expect(written).toEqual(stored);
    expect(written?.metadata.resourceVersion).not.toBe(from.metadata.resourceVersion);
    expect(from.metadata.labels).toEqual({ keep: "1", drop: "2" });
  });

  test("after a Conflict: built again from the object read back, kept as the caller asks", async () => {
    const api = fakeKubeApi();
    const from = api.put(NODES, cached);
    api.put(NODES, { ...from, metadata: { ...from.metadata, labels: { other: "x" } } });
    const written = await patchWithPrecondition({
      api,
      resource: NODES,
      from,
      build: (current) => ({ metadata: { labels: { seen: String(Object.keys(current.metadata.labels ?? {})) } } }),
      keep: (node) => ({ ...node, spec: {} }),
    });
    expect(api.requests).toEqual(["PATCH nodes n", "GET nodes n", "PATCH nodes n"]);
    expect(written?.metadata.labels).toEqual({ other: "x", seen: "other" });
    expect(written?.spec).toEqual({});
    expect(written?.metadata.resourceVersion).toBe(api.stored(NODES, "n")?.metadata.resourceVersion);
  });

  describe("with guards: a JSON patch testing just what the patch was built from", () => {
    const noRetryWait = { steps: 5, baseMs: 0 };
    const addLabel = (current: Node): object => ({
      metadata: { labels: { seen: String(current.spec?.taints?.length) } },
    });

    test("a write to another field meanwhile costs nothing: one PATCH, applied to the newest object", async () => {
      const api = fakeKubeApi();
      const from = api.put(NODES, cached);
      api.put(NODES, { ...from, status: { addresses: [{ type: "InternalIP", address: "10.0.0.1" }] } });
      const guards = ["/spec/taints", "/metadata/labels"];
      await patchWithPrecondition({ api, resource: NODES, from, build: addLabel, guards });
      expect(api.requests).toEqual(["PATCH nodes n"]);
      const stored = api.stored(NODES, "n") as Node;
      expect(stored.status?.addresses).toHaveLength(1);
      expect(stored.metadata.labels).toEqual({ keep: "1", drop: "2", seen: "1" });
      expect(api.writes[0]?.patch).toEqual({
        ops: [
          { op: "test", path: "/spec/taints", value: [{ key: "t", effect: "NoSchedule" }] },
          { op: "test", path: "/metadata/labels", value: { keep: "1", drop: "2" } },
          { op: "add", path: "/metadata/labels/seen", value: "1" },
        ],
      });
    });

    test("a guarded field changed meanwhile: the test fails, the object is read again and the patch rebuilt", async () => {
      const api = fakeKubeApi();
      const from = api.put(NODES, cached);
      api.put(NODES, { ...from, spec: { taints: [] } });
      const guards = ["/spec/taints"];
      await patchWithPrecondition({ api, resource: NODES, from, build: addLabel, guards, policy: noRetryWait });
      expect(api.requests).toEqual(["PATCH nodes n", "GET nodes n", "PATCH nodes n"]);
      expect(api.stored(NODES, "n")?.metadata.labels?.["seen"]).toBe("0");
    });

    test("a 422 the object read again does not explain is the caller's: thrown after one read, not retried", async () => {
      const api = fakeKubeApi();
      const from = api.put(NODES, cached);
      const refused = new KubeApiError(422, "Invalid", 'Node "n" is invalid: spec.providerID: Forbidden');
      api.failNext(/PATCH nodes n/, refused);
      const guards = ["/spec/taints"];
      const error = await patchWithPrecondition({ api, resource: NODES, from, build: addLabel, guards }).catch(
        (e: unknown) => e,
      );
      expect(error).toBe(refused);
      expect(api.requests).toEqual(["PATCH nodes n", "GET nodes n"]);
    });
  });
});
