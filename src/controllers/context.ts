/**
 * The controller contract: what every controller factory receives, what it returns, and the one shape of
 * what its `run` works from. Factories check the capabilities they need here, at construction, and return
 * `{ skip }` with the reason when they cannot run.
 */
import type { InstanceLookup } from "../cloud/instance-lookup.ts";
import type { CloudProvider } from "../cloud/provider.ts";
import type { Config } from "../config/config.ts";
import type { KubeApi } from "../kube/api.ts";
import type { EventRecorder } from "../kube/events.ts";
import type { SharedInformers } from "../kube/informers.ts";
import type { QueueMetrics, WorkQueue } from "../kube/queue.ts";
import type { Shard } from "../kube/shard.ts";
import type { Logger } from "../log/logger.ts";
import type { Metrics } from "../metrics/metrics.ts";
import type { ControllerName } from "../names/controllers.ts";
import type { Clock } from "../util/clock.ts";

/** Built by the manager for one controller; the names in it come from the table in names/controllers.ts. */
export interface ControllerContext {
  readonly config: Config;
  /** Tagged with the controller's ID. */
  readonly logger: Logger;
  readonly provider: CloudProvider;
  /**
   * The instance questions of every controller in this process (or thread), answered with the fewest
   * cloud calls: the node controllers share it, so their questions share batches. Absent when the
   * provider cannot describe instances.
   */
  readonly instances?: InstanceLookup;
  /** Ask for the informers the controller reads in its factory: they start once every controller is built. */
  readonly informers: SharedInformers;
  /** The client the controller writes with: its own ServiceAccount's when configured, else the root one. */
  readonly api: KubeApi;
  /** Records Events with the controller's component name. */
  readonly recorder: EventRecorder;
  readonly metrics: Metrics;
  readonly queueMetrics: QueueMetrics;
  readonly clock: Clock;
  /**
   * This thread's share of the keys (`--controller-threads`; the whole set in a single thread). A
   * controller whose work is per key gives it to its per-key queues and limits its periodic passes to the
   * keys it owns; a controller whose work is whole-cluster runs on one thread only (see app/threads/plan.ts).
   */
  readonly shard: Shard;
}

export interface Controller {
  readonly name: ControllerName;
  /**
   * Registers its informer handlers, waits for the caches, works until `signal` aborts, lets in-flight
   * syncs finish, and removes its handlers again (in `finally`) before it resolves.
   */
  run(signal: AbortSignal): Promise<void>;
}

export type ControllerFactory = (context: ControllerContext) => Controller | { readonly skip: string };

/**
 * What a factory hands its `run`: the context, the dependencies of its sync functions, and its work
 * queues by role (the keys of its `queues` entry in the names table).
 */
export interface Wiring<D, Q extends Readonly<Record<string, WorkQueue>> = Readonly<Record<never, WorkQueue>>> {
  readonly ctx: ControllerContext;
  readonly deps: D;
  readonly queues: Q;
}

/**
 * Thrown by a factory when the flags make its controller impossible to run and upstream exits (the route
 * controller's `--cluster-cidr` rules). The manager starts no controller, logs the message (one line
 * naming the flag and its value) and exits with status 2, as for any invalid flag.
 */
export class ControllerConfigError extends Error {
  override readonly name = "ControllerConfigError";
}
