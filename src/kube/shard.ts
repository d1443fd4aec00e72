/**
 * Sharding of controller work over `--controller-threads`: a key (a Node name, a Service's
 * `namespace/name`) belongs to thread `fnv1a(key) mod count`. The rule depends on the key alone, so one key
 * is always on one thread: its per-key ordering and the one-in-flight rule of the work queue hold across
 * threads, and no two threads ever write for the same object. Plain data, so it travels to a thread as is.
 */

export interface Shard {
  /** This thread's share, 0 ≤ index < count. */
  readonly index: number;
  /** How many threads share the keys; 1: every key is this thread's. */
  readonly count: number;
}

/** A single-threaded manager: every key is its own. */
export const WHOLE: Shard = Object.freeze({ index: 0, count: 1 });

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** 32-bit FNV-1a over the key's UTF-16 code units: cheap, stable across processes and versions. */
export function fnv1a(key: string): number {
  let hash = FNV_OFFSET;
  for (let i = 0; i < key.length; i++) {
    hash ^= key.charCodeAt(i);
    hash = Math.imul(hash, FNV_PRIME);
  }
  return hash >>> 0;
}

/** The thread a key belongs to among `count`. */
export function shardOf(key: string, count: number): number {
  return count <= 1 ? 0 : fnv1a(key) % count;
}

/** Whether `key` is this shard's work. */
export function ownsKey(shard: Shard, key: string): boolean {
  return shard.count <= 1 || fnv1a(key) % shard.count === shard.index;
}
