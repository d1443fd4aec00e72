/**
 * Which controllers share a worker thread. Controllers that read the same caches go together when
 * threads are scarce (each thread runs its own informers): the node-centric pair first, then the
 * service / route pair.
 */
import type { ControllerName } from "../../names/controllers.ts";

const AFFINITY_ORDER: readonly ControllerName[] = [
  "cloud-node-controller",
  "service-lb-controller",
  "cloud-node-lifecycle-controller",
  "node-route-controller",
];

export interface ThreadPlan {
  readonly thread: number;
  readonly controllers: readonly ControllerName[];
}

/** `threads` worker threads over the enabled controllers; threads left without work are not planned. */
export function planThreads(enabled: readonly ControllerName[], threads: number): ThreadPlan[] {
  const ordered = AFFINITY_ORDER.filter((name) => enabled.includes(name));
  const count = Math.max(1, Math.min(threads, ordered.length));
  const plans = Array.from({ length: count }, (_, thread) => ({ thread, controllers: [] as ControllerName[] }));
  ordered.forEach((name, i) => plans[i % count]?.controllers.push(name));
  return plans.filter((p) => p.controllers.length > 0);
}
