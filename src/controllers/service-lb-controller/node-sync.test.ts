import { describe, expect, test } from "bun:test";
import { WorkQueue } from "../../kube/queue.ts";
import { exponentialLimiter } from "../../kube/rate-limiters.ts";
import { runWorkers } from "../../kube/worker.ts";
import { createLogger } from "../../log/logger.ts";
import { realClock, type Clock } from "../../util/clock.ts";
import { pacePasses } from "./node-sync.ts";

/** A clock whose sleeps pass at once, moving its time on; `later` moves it as work between calls would. */
function steppingClock(): Clock & { readonly sleeps: number[]; later(ms: number): void } {
  let now = 10_000;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => now,
    later: (ms) => void (now += ms),
    sleep: (ms, signal) => {
      if (signal?.aborted) return Promise.reject(new Error("aborted"));
      sleeps.push(ms);
      now += ms;
      return Promise.resolve();
    },
  };
}

describe("node passes paced at most one per interval", () => {
  test("a pass soon after the last waits out the interval; one after a quiet spell starts at once", async () => {
    const clock = steppingClock();
    const starts: number[] = [];
    const paced = pacePasses(clock, 1000, async () => void starts.push(clock.now()), new AbortController().signal);
    await paced();
    clock.later(50);
    await paced();
    clock.later(1500);
    await paced();
    clock.later(999);
    await paced();
    expect(starts).toEqual([10_000, 11_000, 12_500, 13_500]);
    expect(clock.sleeps).toEqual([950, 1]);
  });

  test("a burst of node-set changes through the node queue: one pass per interval, the last change included", async () => {
    const queue = new WorkQueue({ name: "node", rateLimiter: exponentialLimiter(5, 1000) });
    const stop = new AbortController();
    let changes = 0;
    const seen: number[] = [];
    const pass = async (): Promise<void> => void seen.push(changes);
    const paced = pacePasses(realClock, 100, pass, stop.signal);
    const logger = createLogger({ verbosity: 0, format: "text", write: () => undefined });
    const workers = runWorkers({ queue, workers: 1, sync: paced, logger }, stop.signal);
    for (let i = 0; i < 40; i++) {
      changes += 1;
      queue.add("nodes");
      await Bun.sleep(10);
    }
    await Bun.sleep(250);
    stop.abort();
    await workers;
    // 40 changes over at least 400 ms: unpaced, a pass per change; paced, one per 100 ms at most.
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(seen.length).toBeLessThanOrEqual(7);
    expect(seen.at(-1)).toBe(40);
  });

  test("shutting down during the wait ends the call without a pass", async () => {
    const clock = steppingClock();
    const stop = new AbortController();
    let passes = 0;
    const paced = pacePasses(clock, 1000, async () => void (passes += 1), stop.signal);
    await paced();
    stop.abort();
    await paced();
    expect(passes).toBe(1);
  });
});
