import { describe, expect, test } from "bun:test";
import { guardedJsonPatch, keysOf, pointer, valueAt } from "./json-patch.ts";

describe("pointer and valueAt (RFC 6901)", () => {
  test("escapes ~ and / in keys, and finds the value again", () => {
    const path = pointer("metadata", "annotations", "alpha.kubernetes.io/provided-node-ip~x");
    expect(path).toBe("/metadata/annotations/alpha.kubernetes.io~1provided-node-ip~0x");
    expect(valueAt({ metadata: { annotations: { "alpha.kubernetes.io/provided-node-ip~x": "ip" } } }, path)).toBe("ip");
    expect(keysOf(path)).toEqual(["metadata", "annotations", "alpha.kubernetes.io/provided-node-ip~x"]);
  });

  test.each([
    { name: "a missing member", doc: { a: {} }, path: "/a/b", want: undefined },
    { name: "under a scalar", doc: { a: 1 }, path: "/a/b", want: undefined },
    { name: "an array element", doc: { a: [{ b: 1 }] }, path: "/a/0/b", want: 1 },
  ])("$name", ({ doc, path, want }) => {
    expect(valueAt(doc, path)).toEqual(want);
  });
});

describe("guardedJsonPatch", () => {
  const node = {
    metadata: { labels: { a: "1" } },
    spec: { taints: [{ key: "t", effect: "NoSchedule" }], providerID: undefined },
    status: {},
  };

  test.each([
    {
      name: "each present guard is tested first, then the merge patch's members are added",
      merge: { metadata: { labels: { b: "2" } }, spec: { providerID: "fake://n", taints: [] } },
      guards: ["/spec/taints", "/metadata/labels", "/spec/providerID"],
      want: [
        { op: "test", path: "/spec/taints", value: [{ key: "t", effect: "NoSchedule" }] },
        { op: "test", path: "/metadata/labels", value: { a: "1" } },
        { op: "add", path: "/metadata/labels/b", value: "2" },
        { op: "add", path: "/spec/providerID", value: "fake://n" },
        { op: "add", path: "/spec/taints", value: [] },
      ],
    },
    {
      name: "null removes a member that is there, and is nothing where it is not",
      merge: { metadata: { labels: { a: null, gone: null } } },
      guards: [],
      want: [{ op: "remove", path: "/metadata/labels/a" }],
    },
    {
      name: "a list replaces whole, into a member not there yet",
      merge: { status: { addresses: [{ type: "InternalIP", address: "10.0.0.1" }] } },
      guards: ["/status/addresses"],
      want: [{ op: "add", path: "/status/addresses", value: [{ type: "InternalIP", address: "10.0.0.1" }] }],
    },
    {
      name: "filling an object the target lacks cannot be guarded: no JSON patch",
      merge: { metadata: { annotations: { x: "y" } } },
      guards: ["/metadata/labels"],
      want: undefined,
    },
  ])("$name", ({ merge, guards, want }) => {
    expect(guardedJsonPatch(node, merge, guards)).toEqual(want as never);
  });
});
