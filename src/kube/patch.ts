/**
 * Writing with optimistic concurrency: build a patch from the latest object, send it with that object's
 * resourceVersion as a precondition, and on Conflict read again and rebuild (client-go RetryOnConflict).
 */
import { backoff, jitter, sleep } from "../util/clock.ts";
import { isConflict } from "./transport.ts";

export interface ConflictBackoff {
  readonly steps: number;
  readonly baseMs: number;
}

/** client-go retry.DefaultRetry: 5 steps from 10 ms. */
export const DEFAULT_RETRY: ConflictBackoff = { steps: 5, baseMs: 10 };
/** Upstream's node-update backoff: 20 steps from 50 ms, jitter 1.0. */
export const NODE_UPDATE_RETRY: ConflictBackoff = { steps: 20, baseMs: 50 };

export async function retryOnConflict<T>(attempt: () => Promise<T>, policy: ConflictBackoff = DEFAULT_RETRY): Promise<T> {
  for (let step = 1; ; step++) {
    try {
      return await attempt();
    } catch (error) {
      if (!isConflict(error) || step >= policy.steps) throw error;
      await sleep(jitter(backoff(step - 1, policy.baseMs, 10_000), 1));
    }
  }
}

/** A merge patch that only applies if the object is still at `resourceVersion`. */
export function withPrecondition<T extends object>(resourceVersion: string | undefined, patch: T): T & { metadata?: { resourceVersion: string } } {
  if (!resourceVersion) return patch;
  const meta = (patch as { metadata?: object }).metadata ?? {};
  return { ...patch, metadata: { ...meta, resourceVersion } };
}
