/**
 * What every controller factory receives, and what it returns. Factories check the capabilities they
 * need here, at construction, and return `{ skip }` with the reason when they cannot run.
 */
import type { CloudProvider } from "../cloud/provider.ts";
import type { Config } from "../cli/config.ts";
import type { ControllerName } from "../controllers/names.ts";
import type { KubeApi } from "../kube/api.ts";
import type { EventSink } from "../kube/events.ts";
import type { SharedInformers } from "../kube/informers.ts";
import type { QueueMetrics } from "../kube/queue.ts";
import type { Logger } from "../log/logger.ts";
import type { Metrics } from "../metrics/metrics.ts";
import type { Clock } from "../util/clock.ts";

/** The client identities upstream uses per controller (`--use-service-account-credentials`). */
export type ControllerIdentity = "node-controller" | "service-controller" | "route-controller";

export interface ControllerContext {
  readonly config: Config;
  readonly logger: Logger;
  readonly provider: CloudProvider;
  readonly informers: SharedInformers;
  readonly events: EventSink;
  readonly metrics: Metrics;
  readonly queueMetrics: QueueMetrics;
  readonly clock: Clock;
  /** The API client a controller writes with: its own ServiceAccount's when configured, else the root one. */
  apiFor(identity: ControllerIdentity): KubeApi;
}

export interface Controller {
  readonly name: ControllerName;
  /** Runs until `signal` aborts, then lets in-flight syncs finish and resolves. */
  run(signal: AbortSignal): Promise<void>;
}

export type ControllerFactory = (context: ControllerContext) => Controller | { readonly skip: string };

/**
 * Thrown by a factory when the flags make its controller impossible to run and upstream exits (the route
 * controller's `--cluster-cidr` rules). The manager starts no controller, logs the message (one line
 * naming the flag and its value) and exits with status 2, as for any invalid flag.
 */
export class ControllerConfigError extends Error {
  override readonly name = "ControllerConfigError";
}
