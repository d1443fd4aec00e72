/**
 * What each controller thread runs (`--controller-threads=N`). Every thread runs every enabled controller
 * whose work is per key, and takes the keys whose hash falls to it (kube/shard.ts): a burst on one
 * controller spreads over every thread, and one key is always on one thread. A controller whose work is
 * whole-cluster runs on thread 0 alone, over every key; so does service-lb-controller when the provider
 * allocates load-balancer addresses from a table of its own (`LoadBalancer.allocatesInProcess`).
 */
import { WHOLE, type Shard } from "../../kube/shard.ts";
import { CONTROLLER_NAMES, type ControllerName } from "../../names/controllers.ts";

/** How a controller's work splits over threads; the reason for each is in the controller's file. */
export const SPLIT: Readonly<Record<ControllerName, "keys" | "thread-0">> = {
  // Node names: initialisation and the periodic address refresh of a Node.
  "cloud-node-controller": "keys",
  // Node names: each thread's monitor pass covers its own Nodes.
  "cloud-node-lifecycle-controller": "keys",
  // One reconcile of every Node against the whole route table: not divisible by key.
  "node-route-controller": "thread-0",
  // Service keys: Ensure / Delete, and the node pass over the Services the thread ensured.
  "service-lb-controller": "keys",
};

export interface ThreadPlan {
  readonly thread: number;
  /** In `CONTROLLER_NAMES` order. */
  readonly controllers: readonly ControllerName[];
  /** The thread's share of the keys of its per-key controllers. */
  readonly shard: Shard;
  /** Those of `controllers` that run here alone and take every key (thread 0 only). */
  readonly whole: readonly ControllerName[];
}

/** How each controller splits: the table, with `onThreadZero` moved to thread 0 alone. */
function splitOf(name: ControllerName, onThreadZero: readonly ControllerName[]): "keys" | "thread-0" {
  return onThreadZero.includes(name) ? "thread-0" : SPLIT[name];
}

/**
 * `threads` worker threads over the enabled controllers; a thread left without work is not planned.
 * `onThreadZero`: controllers that must not split by key here (their provider keeps whole-cluster state).
 */
export function planThreads(
  enabled: readonly ControllerName[],
  threads: number,
  onThreadZero: readonly ControllerName[] = [],
): ThreadPlan[] {
  const ordered = CONTROLLER_NAMES.filter((name) => enabled.includes(name));
  const keyed = ordered.filter((name) => splitOf(name, onThreadZero) === "keys");
  const whole = ordered.filter((name) => !keyed.includes(name));
  if (keyed.length === 0) return ordered.length > 0 ? [{ thread: 0, controllers: ordered, shard: WHOLE, whole }] : [];
  const count = Math.max(1, threads);
  return Array.from({ length: count }, (_, thread) => ({
    thread,
    controllers: thread === 0 ? ordered : keyed,
    shard: { index: thread, count },
    whole: thread === 0 ? whole : [],
  }));
}

/**
 * The startup warning when the threads outnumber the CPUs: each is a VM that compiles its own code and
 * holds its own copy of the caches, so the ones beyond the CPUs add memory and CPU and no speed (README,
 * worker threads: 8 threads on 2 cores 1.22 times as long as one thread, at 2.4 times its memory).
 */
export function threadsBeyondCpus(threads: number, cpus: number): string | undefined {
  if (threads <= cpus) return undefined;
  return `${threads} controller threads on ${cpus} CPU(s): threads beyond the CPUs add memory and CPU, not speed`;
}

/** The startup line: which controllers share their keys over the threads, and which run on thread 0. */
export function describePlan(plans: readonly ThreadPlan[]): string {
  const all = [...new Set(plans.flatMap((p) => p.controllers))];
  const whole = plans.flatMap((p) => p.whole);
  const keyed = all.filter((name) => !whole.includes(name));
  const parts = [
    keyed.length > 0 ? `keys split by hash over every thread: ${keyed.join(", ")}` : "",
    whole.length > 0 ? `on thread 0 alone: ${whole.join(", ")}` : "",
  ];
  return `running ${plans.length} controller thread(s); ${parts.filter(Boolean).join("; ") || "no controllers"}`;
}
