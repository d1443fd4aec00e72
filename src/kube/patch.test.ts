import { describe, expect, test } from "bun:test";
import { fakeKubeApi } from "../../test/harness/fake-kube-api.ts";
import { NODES } from "./api.ts";
import type { Node } from "./objects.ts";
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
});
