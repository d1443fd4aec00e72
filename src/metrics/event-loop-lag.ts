/**
 * The main thread's event-loop lag: a timer measures how late it fires. Leader election, serving and the
 * informers all run on that loop, so lag there is lag in renewing the Lease and answering probes. Each
 * sample goes to a histogram (`/metrics`); the last `windowSize` samples back a health check that fails
 * while their p99 is above `limitSeconds` (a loop that busy answers late enough to lose its Lease).
 *
 * The timer is due every `intervalMs` while the loop is busy (a sample later than `busySeconds`); while
 * it is idle the interval doubles, up to `idleIntervalMs`. Each wake of an otherwise idle Bun event loop
 * costs about 0.2 ms of CPU: four a second were 0.06 of an idle manager's 0.10 CPU s a minute. The price:
 * a lone stall that ends before the next sample is due goes unseen (as one under 250 ms always
 * could); lasting work makes a sample late, and from then on it is sampled every `intervalMs`.
 */
import type { Histogram } from "prom-client";

export interface LagMonitorOptions {
  readonly histogram: Histogram;
  /** The interval while the loop is busy; 0 samples nothing (tests record by hand). */
  readonly intervalMs?: number;
  /** The longest interval, reached while the loop is idle. */
  readonly idleIntervalMs?: number;
  /** A sample later than this marks the loop busy. */
  readonly busySeconds?: number;
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

/** Four samples a second while busy, one every 2 s while idle. */
const DEFAULT_INTERVAL_MS = 250;
const DEFAULT_IDLE_INTERVAL_MS = 2000;
/** Timers fire a millisecond or two late on an idle loop; later than this is work in the way. */
const DEFAULT_BUSY_S = 0.005;
/** 30 seconds of samples while busy, 4 minutes while idle. */
const DEFAULT_WINDOW = 120;
const DEFAULT_LIMIT_S = 1;

export const LAG_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface LagPacing {
  readonly intervalMs: number;
  readonly idleIntervalMs: number;
  readonly busySeconds: number;
}

/** The wait before the next sample: the busy interval after a late sample, else twice the last, capped. */
export function nextLagWait(lagSeconds: number, lastWaitMs: number, p: LagPacing): number {
  return lagSeconds > p.busySeconds ? p.intervalMs : Math.min(p.idleIntervalMs, lastWaitMs * 2);
}

function pacingOf(o: LagMonitorOptions): LagPacing {
  const intervalMs = o.intervalMs ?? DEFAULT_INTERVAL_MS;
  const idleIntervalMs = Math.max(intervalMs, o.idleIntervalMs ?? DEFAULT_IDLE_INTERVAL_MS);
  return { intervalMs, idleIntervalMs, busySeconds: o.busySeconds ?? DEFAULT_BUSY_S };
}

export function monitorEventLoopLag(o: LagMonitorOptions): LagMonitor {
  const pacing = pacingOf(o);
  const { intervalMs } = pacing;
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
  const schedule = (waitMs: number): void => {
    const due = now() + waitMs;
    timer = setTimeout(() => {
      const lag = Math.max(0, now() - due) / 1000;
      record(lag);
      schedule(nextLagWait(lag, waitMs, pacing));
    }, waitMs);
    // The monitor never keeps a process alive that has nothing else to do.
    (timer as { unref?: () => void }).unref?.();
  };
  if (intervalMs > 0 && !o.signal?.aborted) schedule(intervalMs);
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
