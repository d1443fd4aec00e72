/** Time as a dependency, so loops and backoffs can be driven by tests. */
import { onAbort } from "./abort.ts";

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /**
   * Milliseconds on a monotonic clock, for measuring time passed (an NTP step does not move it, as Go's
   * monotonic reading in time.Now). Absent (a test's clock): `now` serves.
   */
  elapsed?(): number;
  /** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const realClock: Clock = {
  now: () => Date.now(),
  elapsed: () => performance.now(),
  sleep,
};

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortReason(signal));
      return;
    }
    const timer = setTimeout(() => {
      unsubscribe();
      resolve();
    }, ms);
    const unsubscribe = onAbort(signal, () => {
      clearTimeout(timer);
      reject(abortReason(signal));
    });
  });
}

/** The signal's reason as an Error (an abort without one is an AbortError, as with fetch). */
export function abortReason(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason : new DOMException("The operation was aborted.", "AbortError");
}

/** Jittered wait: `base × (1 + U[0, factor))`, like apimachinery's `wait.Jitter`. */
export function jitter(base: number, factor = 1): number {
  return base * (1 + Math.random() * factor);
}

/** Exponential backoff step: `initial × 2^attempt`, capped. */
export function backoff(attempt: number, initialMs: number, maxMs: number): number {
  return Math.min(maxMs, initialMs * 2 ** Math.min(attempt, 30));
}

let lastSecond = Number.NaN;
let lastStamp = "";

/** metav1.Time: RFC 3339 with seconds precision (formatted once per second: a burst stamps thousands in one). */
export function rfc3339(ms: number): string {
  const second = Math.floor(ms / 1000);
  if (second !== lastSecond) {
    lastStamp = `${new Date(second * 1000).toISOString().slice(0, 19)}Z`;
    lastSecond = second;
  }
  return lastStamp;
}

/** metav1.MicroTime: RFC 3339 with exactly six fractional digits (Lease times, events.k8s.io). */
export function microTime(ms: number): string {
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 23)}000Z`;
}
