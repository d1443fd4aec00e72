/**
 * What runs on the leader: the provider is initialised, every enabled controller is built (each checks
 * its capabilities and may skip itself) and started, then the shared informers. On stop, controllers
 * stop taking work and get `--shutdown-grace-period` to finish; a controller that crashes stops them all.
 */
import type { ProviderInit } from "../cloud/provider.ts";
import { createInstanceLookup } from "../cloud/instance-lookup.ts";
import type { Controller, ControllerContext } from "../controllers/context.ts";
import { createSharedInformers, type SharedInformers } from "../kube/informers.ts";
import { WHOLE, type Shard } from "../kube/shard.ts";
import { errorMessage } from "../kube/worker.ts";
import { queueMetrics } from "../metrics/queue-metrics.ts";
import { CONTROLLER_NAMES, CONTROLLERS, type ControllerName } from "../names/controllers.ts";
import type { HealthRegistry } from "../serving/health.ts";
import type { ControllerClients } from "./clients.ts";
import type { ProcessDeps } from "./process.ts";
import { buildProviderInit } from "./provider-init.ts";

export { PROVIDER_READINESS_PREFIX } from "./provider-init.ts";

export interface LeaderDeps extends ProcessDeps {
  readonly health: HealthRegistry;
  /** A controller thread runs only its share of the enabled controllers; the rest belong to other threads. */
  readonly only?: ReadonlySet<ControllerName>;
  /** Who leads, when leader election is on. */
  readonly replica?: ProviderInit["replica"];
  /** A controller thread's share of every sharded controller's keys; default: every key. */
  readonly shard?: Shard;
  /** A controller thread: those of its controllers that take every key whatever `shard` says. */
  readonly whole?: ReadonlySet<ControllerName>;
  /** A controller thread: its mirror of the main thread's informers. Absent: this process lists and watches. */
  readonly informers?: SharedInformers;
}

/** The context every controller of this process shares; `buildControllers` adds each one's own names. */
type SharedContext = Omit<ControllerContext, "logger" | "api" | "recorder">;

/** A controller's run loop threw: the manager stops everything rather than run half its controllers. */
export class ControllerCrashedError extends Error {
  override readonly name = "ControllerCrashedError";
}

/**
 * Runs the controllers until `signal` aborts, then drains them (at most --shutdown-grace-period).
 * Resolves whether they all finished: false leaves syncs in flight, so the Lease must not be handed back.
 */
export async function runControllers(deps: LeaderDeps, signal: AbortSignal): Promise<boolean> {
  const { config, logger } = deps;
  const informers = deps.informers ?? createSharedInformers({ api: deps.root, logger, clock: deps.clock });
  deps.health.add("informer-sync", () => (informers.synced ? undefined : "caches not synced yet"));
  if (deps.provider.initialize) await deps.provider.initialize(buildProviderInit(deps, informers, signal));
  const controllers = await buildControllers(deps, sharedContext(deps, informers), await deps.clients(), signal);
  const informerStop = new AbortController();
  const informersDone = informers.run(informerStop.signal);
  const crash = new AbortController();
  const stop = AbortSignal.any([signal, crash.signal]);
  const runs = controllers.map((c) => runOne(deps, c, stop, (error) => crash.abort(error)));
  logger.info(`started ${controllers.length} controller(s): ${controllers.map((c) => c.name).join(", ") || "none"}`);
  void informers.waitForSync(stop).then((synced) => synced && logger.info(`caches synced: ${informers.describe()}`));
  await stopped(stop);
  logger.info("shutting down: controllers stop taking work and finish what is in flight");
  const finished = await Promise.race([
    Promise.all(runs).then(() => true),
    deps.clock.sleep(config.shutdownGracePeriodMs).then(() => false),
  ]);
  if (!finished)
    logger.warn(
      `in-flight work did not finish within --shutdown-grace-period=${config.shutdownGracePeriodMs} ms; stopping anyway`,
    );
  informerStop.abort();
  await informersDone;
  if (crash.signal.aborted)
    throw new ControllerCrashedError(errorMessage(crash.signal.reason), { cause: crash.signal.reason });
  return finished;
}

function sharedContext(deps: LeaderDeps, informers: SharedInformers): SharedContext {
  const { config, provider } = deps;
  const lookupOptions = { windowMs: config.cloudBatchWindowMs, maxBatchSize: config.cloudBatchSize };
  return {
    config,
    provider,
    instances: provider.instances && createInstanceLookup(provider.instances, lookupOptions),
    informers,
    metrics: deps.metrics,
    queueMetrics: queueMetrics(deps.metrics),
    clock: deps.clock,
    shard: deps.shard ?? WHOLE,
  };
}

/** Each controller's logger, client and event recorder, named from the table. */
function contextFor(
  deps: LeaderDeps,
  shared: SharedContext,
  clients: ControllerClients,
  name: ControllerName,
): ControllerContext {
  const names = CONTROLLERS[name];
  return {
    ...shared,
    shard: deps.whole?.has(name) ? WHOLE : shared.shard,
    logger: deps.logger.withTag(name),
    api: clients.apiFor(names.identity),
    recorder: deps.events.recorder(names.component),
  };
}

async function buildControllers(
  deps: LeaderDeps,
  shared: SharedContext,
  clients: ControllerClients,
  signal: AbortSignal,
): Promise<Controller[]> {
  const built: Controller[] = [];
  for (const name of CONTROLLER_NAMES.filter((n) => deps.only?.has(n) ?? true)) {
    if (!deps.config.controllers.includes(name)) {
      deps.logger.info(`"${name}" is disabled`);
      continue;
    }
    const factory = deps.factories[name];
    const result = factory ? factory(contextFor(deps, shared, clients, name)) : { skip: "not available in this build" };
    if ("skip" in result) deps.logger.warn(`skipping "${name}": ${result.skip}`);
    else built.push(result);
    if (deps.config.controllerStartIntervalMs > 0)
      await deps.clock.sleep(deps.config.controllerStartIntervalMs, signal).catch(() => undefined);
  }
  return built;
}

async function runOne(
  deps: LeaderDeps,
  controller: Controller,
  signal: AbortSignal,
  onCrash: (error: unknown) => void,
): Promise<void> {
  const labels = { name: CONTROLLERS[controller.name].metric, manager: "cloud-controller-manager" };
  let failure: string | undefined;
  deps.health.add(controller.name, () => failure);
  deps.metrics.runningControllers.set(labels, 1);
  try {
    await controller.run(signal);
  } catch (error) {
    failure = `crashed: ${errorMessage(error)}`;
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
