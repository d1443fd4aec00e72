import { describe, expect, test } from "bun:test";
import { createLogger } from "../log/logger.ts";
import { WorkQueue } from "./queue.ts";
import { exponentialLimiter } from "./rate-limiters.ts";
import { processNextWorkItem, type WorkerPool } from "./worker.ts";

const logger = createLogger({ verbosity: 0, format: "text", write: () => undefined });

function pool(keys: string[], gather: WorkerPool["gather"], sync: (key: string) => Promise<void>): WorkerPool {
  const queue = new WorkQueue({ name: "test", rateLimiter: exponentialLimiter(1, 10) });
  for (const key of keys) queue.add(key);
  return { queue, workers: 1, sync, logger, gather };
}

describe("processNextWorkItem", () => {
  test("without gather: one key per call (client-go)", async () => {
    const seen: string[] = [];
    const p = pool(["a", "b", "c"], undefined, (k) => Promise.resolve(void seen.push(k)));
    await processNextWorkItem(p);
    expect(seen).toEqual(["a"]);
    expect(p.queue.length).toBe(2);
  });

  test("with gather: up to `size` waiting keys, synced concurrently", async () => {
    let inFlight = 0;
    let most = 0;
    const seen: string[] = [];
    const p = pool(["a", "b", "c", "d", "e"], { size: 3, windowMs: 0 }, async (k) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      await Bun.sleep(5);
      seen.push(k);
      inFlight -= 1;
    });
    await processNextWorkItem(p);
    expect(seen.sort()).toEqual(["a", "b", "c"]);
    expect(most).toBe(3);
    expect(p.queue.length).toBe(2);
  });

  test("keys arriving within the window join the group; failures are requeued one by one", async () => {
    const seen: string[] = [];
    const p = pool(["a"], { size: 10, windowMs: 20 }, (k) => {
      seen.push(k);
      return k === "b" ? Promise.reject(new Error("boom")) : Promise.resolve();
    });
    setTimeout(() => p.queue.add("b"), 2);
    await processNextWorkItem(p);
    expect(seen).toEqual(["a", "b"]);
    expect(p.queue.numRequeues("a")).toBe(0);
    expect(p.queue.numRequeues("b")).toBe(1);
  });
});
