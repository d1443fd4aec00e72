/**
 * Parallel work over a known list (upstream `workqueue.ParallelizeUntil`), in chunks: each of `workers`
 * loops takes `chunkSize` items at a time and runs them together, so per-item cloud questions issued
 * together can share one batched call. Stops taking chunks once `signal` aborts; chunks already started
 * finish. `run` must not throw: it reports its own failures.
 */
export interface ChunkOptions {
  readonly chunkSize: number;
  readonly workers: number;
  readonly signal?: AbortSignal;
}

export async function forEachChunk<T>(
  items: readonly T[],
  options: ChunkOptions,
  run: (item: T) => Promise<void>,
): Promise<void> {
  const size = Math.max(1, options.chunkSize);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length && !options.signal?.aborted) {
      const chunk = items.slice(next, next + size);
      next += size;
      await Promise.all(chunk.map(run));
    }
  };
  const workers = Math.max(1, Math.min(options.workers, Math.ceil(items.length / size)));
  await Promise.all(Array.from({ length: workers }, worker));
}
