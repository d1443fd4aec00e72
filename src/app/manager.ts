/**
 * The manager: builds the shared pieces (API clients, events, metrics, serving, provider), wins the
 * leader election if enabled, then runs the controllers until asked to stop. Shutdown order is what
 * keeps two leaders from ever writing: controllers stop taking work and finish in-flight syncs
 * (bounded), only then is the Lease released.
 */
import type { Config } from "../cli/config.ts";
import type { CloudProvider, ProviderContext } from "../cloud/provider.ts";
import type { Connection } from "../kube/connection.ts";
import { createEventSink } from "../kube/events.ts";
import { TokenBucket } from "../kube/rate-limiter.ts";
import { errorMessage } from "../kube/worker.ts";
import type { Logger } from "../log/logger.ts";
import type { Metrics } from "../metrics/metrics.ts";
import type { Clock } from "../util/clock.ts";
import { buildInfo } from "../version.ts";
import { clientFactory, controllerClients } from "./clients.ts";
import type { ControllerFactory } from "./context.ts";
import { createLeaderElector, LeadershipLostError } from "./leader-election.ts";
import { runControllers, type LeaderDeps } from "./run-controllers.ts";
import { createHealth, startServing } from "./serving.ts";

export interface ManagerDeps {
  readonly config: Config;
  readonly logger: Logger;
  readonly connection: Connection;
  readonly createProvider: (context: ProviderContext) => CloudProvider;
  readonly factories: Readonly<Record<string, ControllerFactory>>;
  readonly metrics: Metrics;
  readonly clock: Clock;
  /** `<hostname>_<uuid>`, the Lease holder identity. */
  readonly identity: string;
  readonly hostname: string;
}

/** Exit status of a manager run: 0 after a requested shutdown, 1 when leadership was lost or a controller crashed. */
export type ManagerExit = 0 | 1;

export async function runManager(deps: ManagerDeps, signal: AbortSignal): Promise<ManagerExit> {
  const { config, logger } = deps;
  const info = buildInfo();
  logger.info(`cloud-controller-manager ${info.version} (commit ${info.commit}), cloud provider ${JSON.stringify(config.cloudProvider)}`);
  for (const flag of config.compatFlagsSet) logger.warn(`flag --${flag} is accepted for compatibility only and has no effect`);
  const limiter = TokenBucket.create(config.kubeApiQps, config.kubeApiBurst);
  const factory = clientFactory(deps.metrics);
  const root = factory.api(deps.connection, limiter);
  const health = createHealth();
  const server = await startServing({ config, logger, health, metrics: deps.metrics, root, factory, hostname: deps.hostname });
  const events = createEventSink({ api: root, logger: logger.withTag("events"), host: deps.hostname, onDrop: (reason) => deps.metrics.eventsDropped.inc({ reason }) });
  const provider = deps.createProvider(providerContext(deps));
  const eventsStop = new AbortController();
  const eventsDone = events.run(eventsStop.signal);
  const leader: LeaderDeps = {
    ...deps,
    health,
    root,
    events,
    provider,
    clients: () =>
      controllerClients({ enabled: config.useServiceAccountCredentials, root, connection: deps.connection, limiter, factory, namespace: config.leaderElection.resourceNamespace, clock: deps.clock, logger }),
  };
  try {
    return await lead(leader, deps.identity, signal);
  } finally {
    eventsStop.abort();
    await eventsDone;
    await provider.close?.();
    await server?.stop(true);
  }
}

function providerContext(deps: ManagerDeps): ProviderContext {
  return {
    logger: deps.logger.withTag(`cloud-provider:${deps.config.cloudProvider}`),
    clusterName: deps.config.clusterName,
    observeCall: (operation, seconds, outcome) => {
      deps.metrics.cloudCalls.inc({ provider: deps.config.cloudProvider, operation, outcome });
      deps.metrics.cloudLatency.observe({ provider: deps.config.cloudProvider, operation }, seconds);
    },
  };
}

function exitAfter(run: Promise<void>, logger: Logger): Promise<ManagerExit> {
  return run.then(
    () => 0,
    (error: unknown) => {
      logger.error(`${errorMessage(error)}; exiting`);
      return 1;
    },
  );
}

async function lead(deps: LeaderDeps, identity: string, signal: AbortSignal): Promise<ManagerExit> {
  const le = deps.config.leaderElection;
  if (!le.enabled) return exitAfter(runControllers(deps, signal), deps.logger);
  const elector = createLeaderElector({
    api: deps.root,
    config: le,
    identity,
    logger: deps.logger.withTag("leader-election"),
    clock: deps.clock,
    recorder: deps.events.recorder("cloud-controller-manager"),
    onStatus: (leading) => deps.metrics.leaderStatus.set({ name: le.resourceName }, leading ? 1 : 0),
    onSlowPath: () => deps.metrics.leaderSlowpath.inc({ name: le.resourceName }),
  });
  deps.health.add("leaderElection", () => elector.check());
  if (!(await elector.acquire(signal))) return 0;
  const leading = new AbortController();
  const renewal = elector.renew(AbortSignal.any([signal, leading.signal])).catch((error: unknown) => leading.abort(error));
  const exit = await exitAfter(runControllers(deps, AbortSignal.any([signal, leading.signal])), deps.logger);
  if (leading.signal.reason instanceof LeadershipLostError) {
    deps.logger.error(`${errorMessage(leading.signal.reason)}; exiting so the supervisor restarts this process`);
    return 1;
  }
  leading.abort();
  await renewal;
  if (le.releaseOnShutdown) await elector.release();
  else deps.logger.info(`keeping lease ${le.resourceNamespace}/${le.resourceName} until it expires (--leader-elect-release-on-shutdown=false)`);
  return exit;
}
