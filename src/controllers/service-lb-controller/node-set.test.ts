import { describe, expect, test } from "bun:test";
import { InformerCache } from "../../kube/informer-cache.ts";
import type { Node } from "../../kube/objects.ts";
import { LABEL_EXCLUDE_FROM_EXTERNAL_LB } from "../../kube/well-known.ts";
import { createLogger } from "../../log/logger.ts";
import { kubeletNode } from "../../../test/harness/fixtures.ts";
import { LoadBalancerNodeSet } from "./node-set.ts";

const quiet = createLogger({ verbosity: 0, format: "text", write: () => undefined });

function node(name: string, labels: Record<string, string> = {}): Node {
  const n = kubeletNode(name, { uninitialized: false, providerID: `fake://${name}` });
  n.metadata.labels = { ...n.metadata.labels, ...labels };
  return n;
}

const names = (nodes: readonly Node[]): string[] => nodes.map((n) => n.metadata.name).sort();

function cacheOf(...nodes: Node[]): InformerCache<Node> {
  const cache = new InformerCache<Node>("nodes", quiet);
  for (const n of nodes) cache.upsert(n);
  return cache;
}

describe("LoadBalancerNodeSet", () => {
  test("while following: one array until a Node changes, then the new set", () => {
    const cache = cacheOf(node("a"), node("b", { [LABEL_EXCLUDE_FROM_EXTERNAL_LB]: "" }));
    const set = new LoadBalancerNodeSet(cache);
    const stop = set.follow();
    const first = set.list();
    expect(names(first)).toEqual(["a"]);
    expect(set.list()).toBe(first);
    cache.upsert(node("c"));
    expect(names(set.list())).toEqual(["a", "c"]);
    const second = set.list();
    cache.upsert(node("b"));
    expect(names(set.list())).toEqual(["a", "b", "c"]);
    expect(second).not.toBe(set.list());
    cache.remove(node("a"));
    expect(names(set.list())).toEqual(["b", "c"]);
    stop();
  });

  test("not following (before start, after stop): filtered afresh on every call", () => {
    const cache = cacheOf(node("a"));
    const set = new LoadBalancerNodeSet(cache);
    expect(set.list()).not.toBe(set.list());
    set.follow()();
    const before = set.list();
    cache.upsert(node("b"));
    expect(names(set.list())).toEqual(["a", "b"]);
    expect(set.list()).not.toBe(before);
  });
});
