/**
 * The worker loop every queue-driven controller shares (upstream `runWorker` / `processNextWorkItem`):
 * take a key, sync it, forget it on success, requeue it on failure, always mark it done. Logging happens
 * here, at the worker boundary, with the key in the message.
 */
import type { Logger } from "../log/logger.ts";
import { sleep } from "../util/clock.ts";
import type { WorkQueue } from "./queue.ts";

export interface WorkerPool {
  readonly queue: WorkQueue;
  readonly workers: number;
  readonly sync: (key: string) => Promise<void>;
  readonly logger: Logger;
  /** How a failed key comes back; rate-limited by default. */
  readonly requeue?: (key: string, error: unknown) => void;
  /**
   * Beyond client-go: after taking a key, a worker also takes up to `size - 1` more keys that are waiting
   * (or arrive within `windowMs`) and syncs them concurrently. This lets even a single worker ask a
   * batching cloud about many nodes in one call; the queue still never hands one key to two syncs.
   * Absent or `size` 1: one key at a time, as client-go.
   */
  readonly gather?: { readonly size: number; readonly windowMs: number };
}

/**
 * Runs `workers` loops until `signal` aborts; then stops handing out keys and resolves once in-flight
 * syncs have finished.
 */
export async function runWorkers(pool: WorkerPool, signal: AbortSignal): Promise<void> {
  const onAbort = (): void => void pool.queue.shutDownWithDrain();
  signal.addEventListener("abort", onAbort, { once: true });
  if (signal.aborted) onAbort();
  try {
    await Promise.all(Array.from({ length: pool.workers }, () => workerLoop(pool)));
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}

async function workerLoop(pool: WorkerPool): Promise<void> {
  while (await processNextWorkItem(pool));
}

export async function processNextWorkItem(pool: WorkerPool): Promise<boolean> {
  const key = await pool.queue.get();
  if (key === undefined) return false;
  const more = await gatherWaiting(pool);
  await Promise.all([key, ...more].map((k) => processKey(pool, k)));
  return true;
}

async function gatherWaiting(pool: WorkerPool): Promise<string[]> {
  const wanted = (pool.gather?.size ?? 1) - 1;
  if (wanted <= 0) return [];
  if (pool.queue.length < wanted && pool.gather?.windowMs) await sleep(pool.gather.windowMs);
  const keys: string[] = [];
  // `get` hands out a waiting key synchronously, so checking `length` first never blocks here.
  while (keys.length < wanted && pool.queue.length > 0) {
    const key = await pool.queue.get();
    if (key === undefined) break;
    keys.push(key);
  }
  return keys;
}

async function processKey(pool: WorkerPool, key: string): Promise<void> {
  try {
    await pool.sync(key);
    pool.queue.forget(key);
  } catch (error) {
    (pool.requeue ?? ((k: string) => pool.queue.addRateLimited(k)))(key, error);
    pool.logger.warn(`error syncing ${JSON.stringify(key)}: ${errorMessage(error)}, requeuing`);
  } finally {
    pool.queue.done(key);
  }
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
