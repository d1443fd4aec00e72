/**
 * The worker loop every queue-driven controller shares (upstream `runWorker` / `processNextWorkItem`):
 * take a key, sync it, forget it on success, requeue it on failure, always mark it done. Logging happens
 * here, at the worker boundary, with the key in the message.
 */
import type { Logger } from "../log/logger.ts";
import type { WorkQueue } from "./queue.ts";

export interface WorkerPool {
  readonly queue: WorkQueue;
  readonly workers: number;
  readonly sync: (key: string) => Promise<void>;
  readonly logger: Logger;
  /** How a failed key comes back; rate-limited by default. */
  readonly requeue?: (key: string, error: unknown) => void;
}

/**
 * Runs `workers` loops until `signal` aborts; then stops handing out keys and resolves once in-flight
 * syncs have finished.
 */
export async function runWorkers(pool: WorkerPool, signal: AbortSignal): Promise<void> {
  const onAbort = (): void => void pool.queue.shutDownWithDrain();
  signal.addEventListener("abort", onAbort, { once: true });
  if (signal.aborted) onAbort();
  const gauges = setInterval(() => pool.queue.reportInFlight(), 1000);
  try {
    await Promise.all(Array.from({ length: pool.workers }, () => workerLoop(pool)));
  } finally {
    clearInterval(gauges);
    signal.removeEventListener("abort", onAbort);
  }
}

async function workerLoop(pool: WorkerPool): Promise<void> {
  while (await processNextWorkItem(pool));
}

export async function processNextWorkItem(pool: WorkerPool): Promise<boolean> {
  const key = await pool.queue.get();
  if (key === undefined) return false;
  try {
    await pool.sync(key);
    pool.queue.forget(key);
  } catch (error) {
    (pool.requeue ?? ((k: string) => pool.queue.addRateLimited(k)))(key, error);
    pool.logger.warn(`error syncing ${JSON.stringify(key)}: ${errorMessage(error)}, requeuing`);
  } finally {
    pool.queue.done(key);
  }
  return true;
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
