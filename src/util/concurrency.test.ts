import { describe, expect, test } from "bun:test";
import { forEachLimited, KeyedLock, Semaphore } from "./concurrency.ts";
import { rejection } from "../../test/harness/doubles.ts";

describe("KeyedLock", () => {
  test("one holder per key, in arrival order; other keys run alongside; released on failure", async () => {
    const lock = new KeyedLock();
    const log: string[] = [];
    const step =
      (name: string, ms: number, fail = false) =>
      async () => {
        log.push(`${name} start`);
        await Bun.sleep(ms);
        log.push(`${name} end`);
        if (fail) throw new Error(name);
      };
    const a1 = lock.withLock("a", step("a1", 20, true)).catch(() => "a1 failed");
    const a2 = lock.withLock("a", step("a2", 1));
    const b = lock.withLock("b", step("b", 1));
    expect(await a1).toBe("a1 failed");
    await Promise.all([a2, b]);
    expect(log.indexOf("a2 start")).toBeGreaterThan(log.indexOf("a1 end"));
    expect(log.indexOf("b end")).toBeLessThan(log.indexOf("a1 end"));
    expect(lock.size).toBe(0);
  });
});

describe("forEachLimited", () => {
  test("never more than the limit in flight, every item done", async () => {
    let inFlight = 0;
    let peak = 0;
    const done: number[] = [];
    await forEachLimited([1, 2, 3, 4, 5, 6, 7], 3, async (n) => {
      inFlight += 1;
      peak = Math.max(peak, inFlight);
      await Bun.sleep(2);
      inFlight -= 1;
      done.push(n);
    });
    expect(peak).toBe(3);
    expect(done.sort()).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  test("a rejection is rethrown after the rest finished", async () => {
    const done: number[] = [];
    const run = forEachLimited([1, 2, 3], 2, async (n) => {
      if (n === 1) throw new Error("one");
      await Bun.sleep(1);
      done.push(n);
    });
    expect((await rejection(run)).message).toBe("one");
    expect(done).toEqual([2, 3]);
  });

  test("no items: resolves", async () => {
    await forEachLimited([], 5, () => Promise.reject(new Error("never called")));
  });
});

describe("Semaphore", () => {
  test("at most the limit at once, waiters in arrival order, a failure frees its slot", async () => {
    const slots = new Semaphore(2);
    const log: string[] = [];
    let peak = 0;
    const job =
      (name: string, fail = false) =>
      async () => {
        peak = Math.max(peak, slots.held);
        log.push(name);
        await Bun.sleep(5);
        if (fail) throw new Error(name);
      };
    const runs = [
      slots.run(job("a", true)).catch(() => undefined),
      slots.run(job("b")),
      slots.run(job("c")),
      slots.run(job("d")),
    ];
    await Promise.all(runs);
    expect(peak).toBe(2);
    expect(log).toEqual(["a", "b", "c", "d"]);
    expect(slots.held).toBe(0);
  });

  test("urgent waiters go first and background ones last, each kind in arrival order", async () => {
    const slots = new Semaphore(1);
    const log: string[] = [];
    const job = (name: string) => async () => {
      log.push(name);
      await Bun.sleep(1);
    };
    await Promise.all([
      slots.run(job("a")),
      slots.run(job("b")),
      slots.run(job("c"), "urgent"),
      slots.run(job("d"), "background"),
      slots.run(job("e")),
      slots.run(job("f"), "urgent"),
    ]);
    expect(log).toEqual(["a", "c", "f", "b", "e", "d"]);
  });
});
