/**
 * Per-item retry delays (client-go workqueue rate limiters): exponential per key, an overall token bucket,
 * and the max of several.
 */
export interface RateLimiter {
  /** How long to wait before this key is processed again; counts one more failure. */
  when(key: string): number;
  /** The key succeeded: its failure count starts over. */
  forget(key: string): void;
  retries(key: string): number;
}

/** `base × 2^failures`, capped at `max` (client-go ItemExponentialFailureRateLimiter). */
export function exponentialLimiter(baseMs: number, maxMs: number): RateLimiter {
  const failures = new Map<string, number>();
  return {
    when(key) {
      const n = failures.get(key) ?? 0;
      failures.set(key, n + 1);
      return Math.min(maxMs, baseMs * 2 ** Math.min(n, 40));
    },
    forget: (key) => void failures.delete(key),
    retries: (key) => failures.get(key) ?? 0,
  };
}

/** One token bucket over all keys (client-go BucketRateLimiter): a flood of failures is slowed overall. */
export function bucketLimiter(qps: number, burst: number, now: () => number = Date.now): RateLimiter {
  let tokens = burst;
  let last = now();
  return {
    when() {
      const t = now();
      tokens = Math.min(burst, tokens + ((t - last) * qps) / 1000) - 1;
      last = t;
      return tokens >= 0 ? 0 : (-tokens * 1000) / qps;
    },
    forget: () => undefined,
    retries: () => 0,
  };
}

export function maxOfLimiters(...limiters: RateLimiter[]): RateLimiter {
  return {
    when: (key) => Math.max(...limiters.map((l) => l.when(key))),
    forget: (key) => limiters.forEach((l) => l.forget(key)),
    retries: (key) => Math.max(...limiters.map((l) => l.retries(key))),
  };
}

/** client-go DefaultControllerRateLimiter: 5 ms → 1000 s per item, and 10 qps / 100 burst overall. */
export function defaultControllerRateLimiter(): RateLimiter {
  return maxOfLimiters(exponentialLimiter(5, 1_000_000), bucketLimiter(10, 100));
}
