import { describe, expect, test } from "bun:test";
import { Fifo, PriorityFifo } from "./fifo.ts";

describe("Fifo", () => {
  test("keeps arrival order across the prefix compaction", () => {
    const q = new Fifo<number>();
    const out: number[] = [];
    for (let i = 0; i < 5000; i++) {
      q.push(i);
      if (i % 3 === 0) out.push(q.shift() as number);
    }
    expect(q.length).toBe(5000 - out.length);
    for (let v = q.shift(); v !== undefined; v = q.shift()) out.push(v);
    expect(out).toEqual(Array.from({ length: 5000 }, (_, i) => i));
    expect(q.shift()).toBeUndefined();
  });

  test("drain returns what is left, oldest first, and empties the queue", () => {
    const q = new Fifo<string>();
    for (const s of ["a", "b", "c"]) q.push(s);
    q.shift();
    expect(q.drain()).toEqual(["b", "c"]);
    expect(q.length).toBe(0);
  });
});

describe("PriorityFifo", () => {
  test("urgent items first and background ones last, each kind in arrival order", () => {
    const q = new PriorityFifo<string>();
    q.push("a");
    q.push("e", "background");
    q.push("b", "urgent");
    q.push("c");
    q.push("d", "urgent");
    expect(q.length).toBe(5);
    const out = Array.from({ length: 6 }, () => q.shift());
    expect(out).toEqual(["b", "d", "a", "c", "e", undefined]);
  });
});
