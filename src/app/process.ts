/**
 * What every process that runs controllers builds for itself, the main thread and each controller thread
 * alike: one function, so a thread is put together exactly as the single-thread manager is. It takes the
 * configuration already parsed (a thread receives it by structured clone) and builds the metrics, the
 * provider, the token bucket (created, or attached to the main thread's shared one), the API clients,
 * the event sink and the per-controller clients.
 */
import type { CloudProvider, ProviderContext } from "../cloud/provider.ts";
import type { ProviderConfig, ProviderRegistry } from "../cloud/registry.ts";
import type { Config } from "../config/config.ts";
import type { ControllerFactory } from "../controllers/context.ts";
import type { KubeApi } from "../kube/api.ts";
import type { Connection } from "../kube/connection.ts";
import { createEventSink, type EventSink } from "../kube/events.ts";
import { TokenBucket, type SharedBucket } from "../kube/token-bucket.ts";
import { DEFAULT_MAX_IN_FLIGHT } from "../kube/transport.ts";
import type { Logger } from "../log/logger.ts";
import { createMetrics, type Metrics } from "../metrics/metrics.ts";
import type { Registry } from "../metrics/prom.ts";
import type { Clock } from "../util/clock.ts";
import { SharedSemaphore, type SharedSlots } from "../util/shared-semaphore.ts";
import { clientFactory, controllerClients, type ClientFactory, type ControllerClients } from "./clients.ts";
import { startupProblems } from "./startup-checks.ts";

/** What this binary holds: every provider and every controller, compiled in. */
export interface Builtins {
  readonly providers: ProviderRegistry;
  readonly controllers: Readonly<Record<string, ControllerFactory>>;
}

export interface ProcessOptions {
  readonly config: Config;
  readonly providerConfig: ProviderConfig;
  readonly builtins: Builtins;
  readonly logger: Logger;
  readonly clock: Clock;
  /** The API server connection, or the reason there is none. */
  readonly connect: () => Promise<Connection | string>;
  /** A thread: the main thread's token bucket in shared memory. Absent: this process creates the bucket. */
  readonly bucket?: SharedBucket;
  /** `source.host` of the Events this process sends. */
  readonly host: string;
  /**
   * A controller thread: its part (1 / threads) of what the manager holds once for all threads, the event
   * queue and its senders. Absent: all of it.
   */
  readonly share?: number;
  /**
   * A controller thread: the requests on the wire at once for every controller thread together, in shared
   * memory, so a thread with more to write (the route controller's) takes slots the others leave free.
   */
  readonly wire?: SharedSlots;
  /** Adds the process-wide default metrics to the registry: the main thread's only. */
  readonly defaultMetrics?: (registry: Registry) => void;
  /** The process's environment, for the provider. */
  readonly env: Readonly<Record<string, string | undefined>>;
}

export interface ProcessDeps {
  readonly config: Config;
  readonly providerConfig: ProviderConfig;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly metrics: Metrics;
  readonly provider: CloudProvider;
  readonly factories: Readonly<Record<string, ControllerFactory>>;
  readonly connection: Connection;
  readonly limiter: TokenBucket;
  readonly factory: ClientFactory;
  /** The manager's own identity: caches, the Lease, events. */
  readonly root: KubeApi;
  readonly events: EventSink;
  /** Builds the per-controller clients once leading (ServiceAccounts are created then). */
  readonly clients: () => Promise<ControllerClients>;
}

export type ProcessResult = { ok: true; deps: ProcessDeps } | { ok: false; errors: string[] };

/**
 * The provider is built first, so the checks that need its capabilities are reported together with a
 * missing connection; on any problem it is closed again and nothing else is built.
 */
export async function buildProcess(o: ProcessOptions): Promise<ProcessResult> {
  const { config, logger, clock } = o;
  const metrics = createMetrics({ defaultMetrics: o.defaultMetrics });
  const context = providerContext(config, logger, metrics, o.env);
  const provider = await o.builtins.providers.create(o.providerConfig, context);
  const problems = startupProblems(config, provider);
  const connection = await o.connect();
  if (typeof connection === "string") problems.push(connection);
  if (problems.length > 0 || typeof connection === "string") {
    await provider.close?.();
    return { ok: false, errors: problems };
  }
  const limiter = o.bucket ? TokenBucket.attach(o.bucket) : TokenBucket.create(config.kubeApiQps, config.kubeApiBurst);
  const factory = clientFactory(metrics, o.wire ? SharedSemaphore.attach(o.wire) : DEFAULT_MAX_IN_FLIGHT, logger);
  const root = factory.api(connection, limiter);
  const onDrop = (reason: "spam" | "full" | "error"): void => metrics.eventsDropped.inc({ reason });
  const events = createEventSink({
    api: root,
    logger: logger.withTag("events"),
    host: o.host,
    onDrop,
    share: o.share,
  });
  const namespace = config.leaderElection.resourceNamespace;
  const enabled = config.useServiceAccountCredentials;
  const clients = (): Promise<ControllerClients> =>
    controllerClients({ enabled, root, connection, limiter, factory, namespace, clock, logger });
  const deps = {
    config,
    providerConfig: o.providerConfig,
    logger,
    clock,
    metrics,
    provider,
    factories: o.builtins.controllers,
  };
  return { ok: true, deps: { ...deps, connection, limiter, factory, root, events, clients } };
}

/** The provider's view of the manager: its logger, its namespace and the provider metrics. */
function providerContext(
  config: Config,
  logger: Logger,
  metrics: Metrics,
  env: ProviderContext["env"],
): ProviderContext {
  const provider = config.cloudProvider;
  return {
    env,
    logger: logger.withTag(`cloud-provider:${provider}`),
    clusterName: config.clusterName,
    namespace: config.leaderElection.resourceNamespace,
    observeCall: (operation, seconds, outcome) => {
      metrics.cloudCalls.inc({ provider, operation, outcome });
      metrics.cloudLatency.observe({ provider, operation }, seconds);
    },
    observeConfigurationDrift: (drifting) => metrics.configurationDrift.set({ provider }, drifting ? 1 : 0),
  };
}
