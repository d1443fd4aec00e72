import { describe, expect, test } from "bun:test";
import { BoundedMap } from "./bounded-map.ts";

function filled(max: number, keys: readonly string[]): BoundedMap<number> {
  const map = new BoundedMap<number>(max);
  keys.forEach((key, i) => map.set(key, i));
  return map;
}

describe("BoundedMap", () => {
  test.each([
    { max: 4, writes: ["a", "b", "c"], kept: ["a", "b", "c"], gone: [] },
    { max: 4, writes: ["a", "b", "c", "d"], kept: ["c", "d"], gone: ["a", "b"] },
    { max: 4, writes: ["a", "b", "c", "d", "e"], kept: ["c", "d", "e"], gone: ["a", "b"] },
    { max: 4, writes: ["a", "b", "a", "c", "d"], kept: ["a", "c", "d"], gone: ["b"] },
    { max: 1, writes: ["a", "b"], kept: ["b"], gone: ["a"] },
  ])("$max at most, writes $writes: keeps $kept", ({ max, writes, kept, gone }) => {
    const map = filled(max, writes);
    expect([kept.filter((k) => map.has(k)), gone.filter((k) => map.has(k))]).toEqual([[...kept], []]);
    const last = writes.at(-1) as string;
    expect(map.get(last)).toBe(writes.length - 1);
    expect(map.size).toBeLessThanOrEqual(max);
  });

  test("reading an old entry keeps it when its generation is dropped", () => {
    const map = filled(4, ["a", "b", "c"]);
    expect(map.get("a")).toBe(0);
    expect([map.get("a"), map.get("b"), map.get("c")]).toEqual([0, undefined, 2]);
  });

  test("a stored undefined counts as present; delete removes from both generations", () => {
    const map = new BoundedMap<number | undefined>(4);
    map.set("u", undefined);
    map.set("x", 1);
    map.set("y", 2);
    expect(map.size).toBe(3);
    map.delete("u");
    map.delete("y");
    expect([map.size, map.get("x")]).toEqual([1, 1]);
  });

  test("never holds more than max entries however many keys pass", () => {
    const map = new BoundedMap<number>(100);
    for (let i = 0; i < 10_000; i++) map.set(`k${i}`, i);
    expect(map.size).toBeLessThanOrEqual(100);
    expect(map.get("k9999")).toBe(9999);
  });
});
