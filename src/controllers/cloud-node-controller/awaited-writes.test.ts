import { describe, expect, test } from "bun:test";
import type { Clock } from "../../util/clock.ts";
import { AwaitedWrites } from "./awaited-writes.ts";

/** A clock that moves only when told, counting the sleeps asked of it. */
function manualClock(): Clock & { advance(ms: number): Promise<void>; readonly sleeps: number[] } {
  let now = 0;
  const sleeping: { due: number; wake: () => void }[] = [];
  const sleeps: number[] = [];
  return {
    now: () => now,
    sleeps,
    sleep(ms) {
      sleeps.push(ms);
      return new Promise((wake) => sleeping.push({ due: now + ms, wake }));
    },
    async advance(ms) {
      now += ms;
      for (const s of sleeping.filter((x) => x.due <= now)) {
        sleeping.splice(sleeping.indexOf(s), 1);
        s.wake();
      }
      for (let i = 0; i < 5; i++) await Promise.resolve();
    },
  };
}

/** Which of the waits have ended. */
function track(waits: Promise<void>[]): boolean[] {
  const ended = waits.map(() => false);
  waits.forEach((w, i) => void w.then(() => (ended[i] = true)));
  return ended;
}

describe("AwaitedWrites", () => {
  test("a thousand waits of one length share one timer, and end at their deadline", async () => {
    const clock = manualClock();
    const awaited = new AwaitedWrites(clock);
    const waits = Array.from({ length: 1000 }, (_, i) => awaited.wait(`uid-${i}`, "7", 1000));
    const ended = track(waits);
    expect(clock.sleeps).toEqual([1000]);
    await clock.advance(999);
    expect(ended.some(Boolean)).toBe(false);
    await clock.advance(1);
    expect(ended.every(Boolean)).toBe(true);
    expect(awaited.size).toBe(0);
    expect(clock.sleeps).toEqual([1000]);
  });

  test("waits started later get the timer again for the earliest of them", async () => {
    const clock = manualClock();
    const awaited = new AwaitedWrites(clock);
    const first = track([awaited.wait("a", "1", 1000)]);
    await clock.advance(400);
    const second = track([awaited.wait("b", "1", 1000)]);
    await clock.advance(600);
    expect([first[0], second[0]]).toEqual([true, false]);
    expect(clock.sleeps).toEqual([1000, 400]);
    await clock.advance(400);
    expect(second[0]).toBe(true);
  });

  test("the watch showing the written version ends that wait at once; another version does not", async () => {
    const clock = manualClock();
    const awaited = new AwaitedWrites(clock);
    const ended = track([awaited.wait("a", "7", 1000), awaited.wait("b", "7", 1000)]);
    awaited.seen("a", "6");
    awaited.seen("b", "7");
    await clock.advance(0);
    expect(ended).toEqual([false, true]);
    awaited.forget("a");
    await clock.advance(0);
    expect(ended).toEqual([true, true]);
    expect(awaited.size).toBe(0);
  });

  test("a new wait for the same Node ends the one before it", async () => {
    const clock = manualClock();
    const awaited = new AwaitedWrites(clock);
    const ended = track([awaited.wait("a", "7", 1000)]);
    const again = track([awaited.wait("a", "9", 1000)]);
    await clock.advance(0);
    expect([ended[0], again[0]]).toEqual([true, false]);
    awaited.seen("a", "9");
    await clock.advance(0);
    expect(again[0]).toBe(true);
  });
});
