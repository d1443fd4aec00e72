/**
 * The client-side token bucket behind `--kube-api-qps` / `--kube-api-burst` (client-go's
 * `tokenBucketRateLimiter`: reservations may drive the balance negative, so waiters are served in order).
 * Its state lives in a SharedArrayBuffer, so every worker thread draws from the one bucket and the flags
 * stay a process-wide ceiling.
 *
 * Background requests (Events) take a token only when one is free and nobody holds a reservation on it,
 * so they never push a controller's write later; they still count against the same ceiling.
 *
 * A thread's waiting requests queue here and take the tokens one by one as they come due, urgent ones
 * first: the second write of a sync under way (a Node's addresses, right after its taint came off) is not
 * held behind the first writes of every other Node of a burst. Across threads, reservations still keep
 * the order in which they were made.
 */
import { onAbort } from "../util/abort.ts";
import { abortReason, sleep } from "../util/clock.ts";
import { PriorityFifo } from "../util/fifo.ts";

const TOKENS = 0;
const LAST_MS = 1;
/** How often a background request looks for a free token at the most (at high QPS, once per token). */
const MIN_IDLE_POLL_MS = 10;
/** A token due this soon goes out now: timers fire at millisecond granularity at best. */
const DUE_TOLERANCE_MS = 1;

interface Waiter {
  readonly resolve: () => void;
  /** Set once the waiter gave up (its signal aborted): the token goes to the next one. */
  gone: boolean;
}

export class TokenBucket {
  readonly #state: Float64Array;
  readonly #lock: Int32Array;
  readonly #qps: number;
  readonly #burst: number;
  readonly #waiters = new PriorityFifo<Waiter>();
  #pumping = false;

  private constructor(buffer: SharedArrayBuffer, qps: number, burst: number) {
    this.#lock = new Int32Array(buffer, 0, 2);
    this.#state = new Float64Array(buffer, 8, 2);
    this.#qps = qps;
    this.#burst = Math.max(1, burst);
  }

  /** A full bucket. `qps <= 0` means unlimited. */
  static create(qps: number, burst: number): TokenBucket {
    const bucket = new TokenBucket(new SharedArrayBuffer(24), qps, burst);
    bucket.#state[TOKENS] = Math.max(1, burst);
    bucket.#state[LAST_MS] = Date.now();
    return bucket;
  }

  /** The same bucket seen from another thread. */
  static attach(shared: SharedBucket): TokenBucket {
    return new TokenBucket(shared.buffer, shared.qps, shared.burst);
  }

  get shared(): SharedBucket {
    return { buffer: this.#lock.buffer as SharedArrayBuffer, qps: this.#qps, burst: this.#burst };
  }

  /** Takes one token and returns how many milliseconds the caller must wait before using it. */
  reserve(now = Date.now()): number {
    if (this.#qps <= 0) return 0;
    return this.#locked(now, (tokens) => {
      const left = tokens - 1;
      this.#state[TOKENS] = left;
      return left >= 0 ? 0 : (-left * 1000) / this.#qps;
    });
  }

  /** Takes one token only if a whole one is free right now (no reservation is waiting on it). */
  tryTake(now = Date.now()): boolean {
    if (this.#qps <= 0) return true;
    return this.#locked(now, (tokens) => {
      this.#state[TOKENS] = tokens >= 1 ? tokens - 1 : tokens;
      return tokens >= 1;
    });
  }

  /** Resolves when the caller may send one request; `urgent`: before this thread's other waiters. */
  async wait(signal?: AbortSignal, urgent = false): Promise<void> {
    if (signal?.aborted) throw abortReason(signal);
    if (this.#waiters.length === 0 && this.tryTake()) return;
    await new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        resolve: () => {
          unsubscribe();
          resolve();
        },
        gone: false,
      };
      const unsubscribe = onAbort(signal, () => {
        waiter.gone = true;
        reject(abortReason(signal));
      });
      this.#waiters.push(waiter, urgent ? "urgent" : "normal");
      if (!this.#pumping) void this.#pump();
    });
  }

  /** Hands out this thread's tokens as they come due, one reservation per waiter, urgent waiters first. */
  async #pump(): Promise<void> {
    this.#pumping = true;
    try {
      while (this.#waiters.length > 0) {
        const delay = this.reserve();
        if (delay > DUE_TOLERANCE_MS) await sleep(delay);
        this.#nextWaiter()?.resolve();
      }
    } finally {
      this.#pumping = false;
    }
  }

  /** The first waiter that is still waiting; one that gave up leaves its token to the next. */
  #nextWaiter(): Waiter | undefined {
    for (let w = this.#waiters.shift(); w; w = this.#waiters.shift()) if (!w.gone) return w;
    return undefined;
  }

  /** Resolves when the caller may send one background request: only from tokens nobody else waits for. */
  async waitIdle(signal?: AbortSignal): Promise<void> {
    while (!this.tryTake()) await sleep(Math.max(MIN_IDLE_POLL_MS, 1000 / this.#qps), signal);
  }

  /** Runs `update` with the refilled balance under the cross-thread lock. */
  #locked<T>(now: number, update: (tokens: number) => T): T {
    while (Atomics.compareExchange(this.#lock, 0, 0, 1) !== 0) Atomics.wait(this.#lock, 0, 1, 1);
    try {
      const elapsed = Math.max(0, now - (this.#state[LAST_MS] ?? now));
      const tokens = Math.min(this.#burst, (this.#state[TOKENS] ?? 0) + (elapsed * this.#qps) / 1000);
      this.#state[TOKENS] = tokens;
      this.#state[LAST_MS] = now;
      return update(tokens);
    } finally {
      Atomics.store(this.#lock, 0, 0);
      Atomics.notify(this.#lock, 0);
    }
  }
}

export interface SharedBucket {
  readonly buffer: SharedArrayBuffer;
  readonly qps: number;
  readonly burst: number;
}
