/**
 * The main thread's event-loop lag: a timer due every `intervalMs` measures how late it fires. Leader
 * election, serving and the informers all run on that loop, so lag there is lag in renewing the Lease and
 * answering probes. Each sample goes to a histogram (`/metrics`); the last `windowSize` samples back a
 * health check that fails while their p99 is above `limitSeconds` (a loop that busy answers late enough
 * to lose its Lease).
 */
import type { Histogram } from "prom-client";

export interface LagMonitorOptions {
  readonly histogram: Histogram;
  readonly intervalMs?: number;
  readonly windowSize?: number;
  readonly limitSeconds?: number;
  readonly now?: () => number;
  /** Sampling stops when it aborts. */
  readonly signal?: AbortSignal;
}

export interface LagMonitor {
  /** The health check: undefined while the recent p99 is within the limit, else why not. */
  check(): string | undefined;
  /** The p99 of the recent samples, in seconds (0 before the first). */
  p99(): number;
  /** Records one measured lag (the timer does this; exposed for tests). */
  record(seconds: number): void;
  stop(): void;
}

/**
 * Four samples a second: each wake of an otherwise idle Bun event loop costs about 0.2 ms of CPU, so the
 * 10 a second this began with were a fifth of a 5,000-node cluster's steady-state CPU.
 */
const DEFAULT_INTERVAL_MS = 250;
/** 30 seconds of samples at the default interval. */
const DEFAULT_WINDOW = 120;
const DEFAULT_LIMIT_S = 1;

export const LAG_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function monitorEventLoopLag(o: LagMonitorOptions): LagMonitor {
  const intervalMs = o.intervalMs ?? DEFAULT_INTERVAL_MS;
  const limit = o.limitSeconds ?? DEFAULT_LIMIT_S;
  const now = o.now ?? ((): number => performance.now());
  const window = new Float64Array(o.windowSize ?? DEFAULT_WINDOW);
  let filled = 0;
  let next = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const record = (seconds: number): void => {
    o.histogram.observe(seconds);
    window[next] = seconds;
    next = (next + 1) % window.length;
    filled = Math.min(filled + 1, window.length);
  };
  const p99 = (): number => {
    if (filled === 0) return 0;
    const sorted = window.slice(0, filled).sort();
    return sorted[Math.min(filled - 1, Math.ceil(filled * 0.99) - 1)] ?? 0;
  };
  const schedule = (): void => {
    const due = now() + intervalMs;
    timer = setTimeout(() => {
      record(Math.max(0, now() - due) / 1000);
      schedule();
    }, intervalMs);
    // The monitor never keeps a process alive that has nothing else to do.
    (timer as { unref?: () => void }).unref?.();
  };
  if (intervalMs > 0 && !o.signal?.aborted) schedule();
  o.signal?.addEventListener("abort", () => clearTimeout(timer), { once: true });
  return {
    check() {
      const recent = p99();
      return recent > limit
        ? `event loop lag p99 ${recent.toFixed(2)} s over the last ${filled} samples exceeds ${limit} s`
        : undefined;
    },
    p99,
    record,
    stop: () => clearTimeout(timer),
  };
}
