/**
 * The manager: builds the shared pieces (API client, informers, events, metrics, provider), wins the
 * leader election if enabled, then initialises the provider and runs every enabled controller until
 * asked to stop. Shutdown order is what keeps two leaders from ever writing: controllers stop taking
 * work and finish in-flight syncs (bounded), only then is the Lease released.
 */
import type { Config } from "../cli/config.ts";
import type { CloudProvider, ProviderContext } from "../cloud/provider.ts";
import { CONTROLLER_NAMES, METRIC_NAMES } from "../controllers/names.ts";
import { createKubeApi, type KubeApi } from "../kube/api.ts";
import type { Connection } from "../kube/connection.ts";
import { createEventSink, type EventSink } from "../kube/events.ts";
import { createSharedInformers } from "../kube/informers.ts";
import { TokenBucket } from "../kube/rate-limiter.ts";
import { createTransport } from "../kube/transport.ts";
import { errorMessage } from "../kube/worker.ts";
import type { Logger } from "../log/logger.ts";
import type { Metrics } from "../metrics/metrics.ts";
import { queueMetrics } from "../metrics/queue-metrics.ts";
import type { Clock } from "../util/clock.ts";
import { buildInfo, userAgent } from "../version.ts";
import type { Controller, ControllerContext, ControllerFactory } from "./context.ts";
import { createLeaderElector, LeadershipLostError } from "./leader-election.ts";

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

/** Exit status of a manager run: 0 after a requested shutdown, 1 when leadership was lost. */
export type ManagerExit = 0 | 1;

interface Shared {
  readonly api: KubeApi;
  readonly events: EventSink;
  readonly provider: CloudProvider;
}

export async function runManager(deps: ManagerDeps, signal: AbortSignal): Promise<ManagerExit> {
  const { config, logger } = deps;
  const info = buildInfo();
  logger.info(`cloud-controller-manager ${info.version} (commit ${info.commit}), cloud provider ${JSON.stringify(config.cloudProvider)}`);
  for (const flag of config.compatFlagsSet) logger.warn(`flag --${flag} is accepted for compatibility only and has no effect`);
  const limiter = TokenBucket.create(config.kubeApiQps, config.kubeApiBurst);
  const host = new URL(deps.connection.server).host;
  const transport = createTransport({
    connection: deps.connection,
    limiter,
    userAgent: userAgent(),
    observe: (method, code, seconds) => {
      deps.metrics.restRequests.inc({ code, method, host });
      deps.metrics.restLatency.observe({ verb: method, host }, seconds);
    },
  });
  const api = createKubeApi(transport);
  const events = createEventSink({ api, logger: logger.withTag("events"), host: deps.hostname, onDrop: (reason) => deps.metrics.eventsDropped.inc({ reason }) });
  const provider = deps.createProvider(providerContext(deps));
  const eventsStop = new AbortController();
  const eventsDone = events.run(eventsStop.signal);
  try {
    return await lead(deps, { api, events, provider }, signal);
  } finally {
    eventsStop.abort();
    await eventsDone;
    await provider.close?.();
    logger.debug(`API requests sent: ${await requestTotals(deps.metrics)}`);
  }
}

/** `GET 200=12, PATCH 409=1, …` from `rest_client_requests_total`, for a debug line at exit. */
async function requestTotals(metrics: Metrics): Promise<string> {
  const { values } = await metrics.restRequests.get();
  return values.map((v) => `${v.labels.method} ${v.labels.code}=${v.value}`).join(", ") || "none";
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

async function lead(deps: ManagerDeps, shared: Shared, signal: AbortSignal): Promise<ManagerExit> {
  const le = deps.config.leaderElection;
  if (!le.enabled) {
    return runControllers(deps, shared, signal).then(
      () => 0,
      (error: unknown) => {
        deps.logger.error(`${errorMessage(error)}; exiting`);
        return 1;
      },
    );
  }
  const lease = `${le.resourceNamespace}/${le.resourceName}`;
  const elector = createLeaderElector({
    api: shared.api,
    config: le,
    identity: deps.identity,
    logger: deps.logger.withTag("leader-election"),
    clock: deps.clock,
    recorder: shared.events.recorder("cloud-controller-manager"),
    onStatus: (leading) => deps.metrics.leaderStatus.set({ name: le.resourceName }, leading ? 1 : 0),
    onSlowPath: () => deps.metrics.leaderSlowpath.inc({ name: le.resourceName }),
  });
  if (!(await elector.acquire(signal))) return 0;
  const leading = new AbortController();
  const renewal = elector.renew(AbortSignal.any([signal, leading.signal])).catch((error: unknown) => {
    leading.abort(error);
  });
  const crashed = await runControllers(deps, shared, AbortSignal.any([signal, leading.signal])).then(
    () => undefined,
    (error: unknown) => error,
  );
  if (crashed) {
    deps.logger.error(`${errorMessage(crashed)}; exiting`);
    return 1;
  }
  if (leading.signal.reason instanceof LeadershipLostError) {
    deps.logger.error(`${errorMessage(leading.signal.reason)}; exiting so the supervisor restarts this process`);
    return 1;
  }
  leading.abort();
  await renewal;
  if (le.releaseOnShutdown) await elector.release();
  else deps.logger.info(`keeping lease ${lease} until it expires (--leader-elect-release-on-shutdown=false)`);
  return 0;
}

/** Initialise the provider, start every enabled controller and the informers, wait for `signal`. */
async function runControllers(deps: ManagerDeps, shared: Shared, signal: AbortSignal): Promise<void> {
  const { config, logger } = deps;
  const informers = createSharedInformers({ api: shared.api, logger, clock: deps.clock });
  if (shared.provider.initialize) {
    await shared.provider.initialize({ signal, nodes: informers.nodes(), services: informers.services(), waitForSync: (s) => informers.waitForSync(s), kube: shared.api });
  }
  const context: ControllerContext = {
    config,
    logger,
    provider: shared.provider,
    informers,
    events: shared.events,
    metrics: deps.metrics,
    queueMetrics: queueMetrics(deps.metrics),
    clock: deps.clock,
    apiFor: () => shared.api,
  };
  const controllers = await buildControllers(deps, context, signal);
  const informerStop = new AbortController();
  const informersDone = informers.run(informerStop.signal);
  const crash = new AbortController();
  const stop = AbortSignal.any([signal, crash.signal]);
  const runs = controllers.map((c) => runOne(deps, c, stop, (error) => crash.abort(error)));
  logger.info(`started ${controllers.length} controller(s): ${controllers.map((c) => c.name).join(", ") || "none"}`);
  void informers.waitForSync(stop).then((synced) => {
    if (synced) logger.info(`caches synced: ${informers.describe()}`);
  });
  await stopped(stop);
  logger.info("shutting down: controllers stop taking work and finish what is in flight");
  const finished = await Promise.race([Promise.all(runs).then(() => true), deps.clock.sleep(config.shutdownGracePeriodMs).then(() => false)]);
  if (!finished) logger.warn(`in-flight work did not finish within --shutdown-grace-period=${config.shutdownGracePeriodMs} ms; stopping anyway`);
  informerStop.abort();
  await informersDone;
  if (crash.signal.aborted) throw new ControllerCrashedError(errorMessage(crash.signal.reason), { cause: crash.signal.reason });
}

/** A controller's run loop threw: the manager stops everything rather than run half its controllers. */
export class ControllerCrashedError extends Error {
  override readonly name = "ControllerCrashedError";
}

async function buildControllers(deps: ManagerDeps, context: ControllerContext, signal: AbortSignal): Promise<Controller[]> {
  const built: Controller[] = [];
  for (const name of CONTROLLER_NAMES) {
    if (!deps.config.controllers.has(name)) {
      deps.logger.info(`"${name}" is disabled`);
      continue;
    }
    const factory = deps.factories[name];
    const result = factory ? factory({ ...context, logger: deps.logger.withTag(name) }) : { skip: "not available in this build" };
    if ("skip" in result) deps.logger.warn(`skipping "${name}": ${result.skip}`);
    else built.push(result);
    if (deps.config.controllerStartIntervalMs > 0) await deps.clock.sleep(deps.config.controllerStartIntervalMs, signal).catch(() => undefined);
  }
  return built;
}

async function runOne(deps: ManagerDeps, controller: Controller, signal: AbortSignal, onCrash: (error: unknown) => void): Promise<void> {
  const labels = { name: METRIC_NAMES[controller.name], manager: "cloud-controller-manager" };
  deps.metrics.runningControllers.set(labels, 1);
  try {
    await controller.run(signal);
  } catch (error) {
    deps.logger.error(`controller ${controller.name} crashed, stopping the manager: ${errorMessage(error)}`);
    onCrash(new Error(`${controller.name}: ${errorMessage(error)}`, { cause: error }));
  } finally {
    deps.metrics.runningControllers.set(labels, 0);
  }
}

function stopped(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}
