import { describe, expect, test } from "bun:test";
import { fnv1a, ownsKey, shardOf, WHOLE } from "./shard.ts";

const nodeNames = Array.from({ length: 10_000 }, (_, i) => `ip-10-0-${Math.floor(i / 250)}-${i % 250}.ec2.internal`);
const serviceKeys = Array.from({ length: 2_000 }, (_, i) => `team-${i % 37}/web-${i}`);

describe("fnv1a", () => {
  // Published FNV-1a 32-bit test vectors: the hash is a fixed function, not a per-process one.
  const vectors: [string, number][] = [
    ["", 0x811c9dc5],
    ["a", 0xe40c292c],
    ["foobar", 0xbf9cf968],
  ];
  for (const [key, want] of vectors) test(JSON.stringify(key), () => expect(fnv1a(key)).toBe(want));
});

describe("shardOf", () => {
  test("one thread takes every key", () => {
    for (const key of serviceKeys) expect(shardOf(key, 1)).toBe(0);
    expect(serviceKeys.every((key) => ownsKey(WHOLE, key))).toBe(true);
  });

  // Pinned: the rule is a function of the key alone, the same in every thread, process and version.
  const pinned: [string, number, number][] = [
    ["default/web", 1, 3],
    ["kube-system/dns", 0, 2],
    ["node-a", 1, 3],
    ["node-b", 0, 2],
  ];
  for (const [key, of2, of4] of pinned) {
    test(`stable: ${key} → ${of2} of 2, ${of4} of 4`, () => {
      expect([shardOf(key, 2), shardOf(key, 4)]).toEqual([of2, of4]);
      expect(ownsKey({ index: of2, count: 2 }, key)).toBe(true);
      expect(ownsKey({ index: 1 - of2, count: 2 }, key)).toBe(false);
    });
  }

  const counts = [2, 3, 4, 8];
  for (const count of counts) {
    test(`${count} threads: each key on exactly one thread, spread evenly`, () => {
      for (const keys of [nodeNames, serviceKeys]) {
        const perThread = new Array<number>(count).fill(0);
        for (const key of keys) {
          const owners = Array.from({ length: count }, (_, index) => index).filter((index) =>
            ownsKey({ index, count }, key),
          );
          expect(owners).toEqual([shardOf(key, count)]);
          perThread[shardOf(key, count)]! += 1;
        }
        const even = keys.length / count;
        // Within 15 % of an even split for thousands of keys (a bad hash of similar names fails this).
        for (const n of perThread) expect(Math.abs(n - even)).toBeLessThan(even * 0.15);
      }
    });
  }
});
