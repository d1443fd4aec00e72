import { PriorityFifo, type Precedence } from "./fifo.ts";

/**
 * One holder per key at a time, waiters served in arrival order. Used where two work paths act on the
 * same object and must never overlap (the service controller's Ensure/Delete and its node-sync Update,
 * kubernetes/kubernetes#100846). Keys without holders or waiters cost nothing.
 */
export class KeyedLock {
  readonly #tails = new Map<string, Promise<void>>();

  /** Runs `work` once every earlier holder of `key` has finished, and resolves with its result. */
  async withLock<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    let release = (): void => undefined;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => mine);
    this.#tails.set(key, tail);
    await previous;
    try {
      return await work();
    } finally {
      release();
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    }
  }

  /** Keys currently held or waited for. */
  get size(): number {
    return this.#tails.size;
  }
}

/** Runs work within a limit of holders at a time. */
export interface Slots {
  /** Runs `work` once a slot is free (waiters of a higher precedence first), and frees it when it settles. */
  run<T>(work: () => Promise<T>, precedence?: Precedence): Promise<T>;
}

/** At most `limit` holders at a time; waiters by precedence, each kind in arrival order. */
export class Semaphore implements Slots {
  readonly #limit: number;
  readonly #waiters = new PriorityFifo<() => void>();
  #held = 0;

  constructor(limit: number) {
    this.#limit = Math.max(1, limit);
  }

  /** Runs `work` once a slot is free, and frees the slot when it settles. */
  async run<T>(work: () => Promise<T>, precedence: Precedence = "normal"): Promise<T> {
    if (this.#held >= this.#limit) await new Promise<void>((resolve) => this.#waiters.push(resolve, precedence));
    else this.#held += 1;
    try {
      return await work();
    } finally {
      const next = this.#waiters.shift();
      if (next) next();
      else this.#held -= 1;
    }
  }

  /** Holders now. */
  get held(): number {
    return this.#held;
  }
}

/**
 * Calls `work` for every item with at most `limit` calls in flight, and resolves once all have settled.
 * `work` reports its own failures; a rejection here is a bug and is rethrown after the rest finish.
 */
export async function forEachLimited<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const errors: unknown[] = [];
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++] as T;
      await work(item).catch((error: unknown) => void errors.push(error));
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane));
  if (errors.length > 0) throw errors[0];
}
