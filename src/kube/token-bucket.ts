/**
 * The client-side token bucket behind `--kube-api-qps` / `--kube-api-burst` (client-go's
 * `tokenBucketRateLimiter`: reservations may drive the balance negative, so waiters are served in order).
 * Its state lives in a SharedArrayBuffer, so every worker thread draws from the one bucket and the flags
 * stay a process-wide ceiling.
 */
import { sleep } from "../util/clock.ts";

const TOKENS = 0;
const LAST_MS = 1;

export class TokenBucket {
  readonly #state: Float64Array;
  readonly #lock: Int32Array;
  readonly #qps: number;
  readonly #burst: number;

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
    while (Atomics.compareExchange(this.#lock, 0, 0, 1) !== 0) Atomics.wait(this.#lock, 0, 1, 1);
    try {
      const elapsed = Math.max(0, now - (this.#state[LAST_MS] ?? now));
      const tokens = Math.min(this.#burst, (this.#state[TOKENS] ?? 0) + (elapsed * this.#qps) / 1000) - 1;
      this.#state[TOKENS] = tokens;
      this.#state[LAST_MS] = now;
      return tokens >= 0 ? 0 : (-tokens * 1000) / this.#qps;
    } finally {
      Atomics.store(this.#lock, 0, 0);
      Atomics.notify(this.#lock, 0);
    }
  }

  /** Resolves when the caller may send one request. */
  async wait(signal?: AbortSignal): Promise<void> {
    const delay = this.reserve();
    if (delay > 0) await sleep(delay, signal);
  }
}

export interface SharedBucket {
  readonly buffer: SharedArrayBuffer;
  readonly qps: number;
  readonly burst: number;
}
