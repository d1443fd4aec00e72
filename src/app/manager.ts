/**
 * The manager: builds the shared pieces (API clients, events, metrics, serving, provider), wins the
 * leader election if enabled, then runs the controllers until asked to stop. Shutdown order is what
 * keeps two leaders from ever writing: controllers stop taking work and finish in-flight syncs
 * (bounded) while the Lease is still renewed, only then is it released. Leadership lost, the process
 * exits at once, without that drain.
 */
import type { Config } from "../config/config.ts";
import { ControllerConfigError } from "../controllers/context.ts";
import { errorMessage } from "../kube/worker.ts";
import type { Logger } from "../log/logger.ts";
import { monitorEventLoopLag } from "../metrics/event-loop-lag.ts";
import { createMetricsHub } from "../metrics/hub.ts";
import type { Metrics } from "../metrics/metrics.ts";
import { FEATURE_GATES } from "../config/feature-gates.ts";
import { recordBuild } from "../metrics/build-info.ts";
import { createHealthSlis } from "../metrics/slis.ts";
import type { KubeApi } from "../kube/api.ts";
import { TokenBucket } from "../kube/token-bucket.ts";
import { buildInfo, userAgent } from "../version.ts";
import { createLeaderElector, type LeaderElector } from "./leader-election.ts";
import type { ProcessDeps } from "./process.ts";
import { runControllers } from "./run-controllers.ts";
import { createHealth, startServing, type ReviewConnections } from "./serving.ts";
import { runControllerThreads, type ThreadDeps } from "./threads/host.ts";

export interface ManagerDeps extends ProcessDeps {
  /** `<hostname>_<uuid>`, the Lease holder identity. */
  readonly identity: string;
  readonly hostname: string;
  /** The worker-thread entry point (`--controller-threads`). */
  readonly workerUrl: string;
  /** CPUs this process may use: more controller threads than these get a warning. */
  readonly cpus: number;
  /** The secure port's review clients' own API servers (`--authentication-kubeconfig`, `--authorization-…`). */
  readonly reviews: ReviewConnections;
  /** The version to report instead of the build's (`--version=vX.Y.Z…`). */
  readonly version?: string;
}

/**
 * Exit status of a manager run: 0 after a requested shutdown, 1 when leadership was lost or a controller
 * crashed, 2 when a controller found its flags unusable (`ControllerConfigError`).
 */
export type ManagerExit = 0 | 1 | 2;

/** The build and its settings, in the log and in `kubernetes_build_info` / `kubernetes_feature_enabled`. */
function announce(config: Config, logger: Logger, metrics: Metrics, version: string | undefined): void {
  const info = { ...buildInfo(), ...(version ? { version } : {}) };
  recordBuild(metrics, info, FEATURE_GATES, config.featureGates);
  logger.info(
    `cloud-controller-manager ${info.version} (commit ${info.commit}), cloud provider ${JSON.stringify(config.cloudProvider)}`,
  );
  for (const flag of config.compatFlagsSet)
    logger.warn(`flag --${flag} is accepted for compatibility only and has no effect`);
}

export async function runManager(deps: ManagerDeps, signal: AbortSignal): Promise<ManagerExit> {
  const { config, logger, provider, events, root, factory } = deps;
  announce(config, logger, deps.metrics, deps.version);
  const slis = createHealthSlis();
  const health = createHealth(slis, monitorEventLoopLag({ histogram: deps.metrics.eventLoopLag, signal }));
  const hub = createMetricsHub(deps.metrics);
  const serving = {
    config,
    logger,
    health,
    metrics: hub,
    registry: deps.metrics,
    slis,
    root,
    factory,
    hostname: deps.hostname,
    reviews: deps.reviews,
    signal,
  };
  const server = await startServing(serving);
  const eventsStop = new AbortController();
  const eventsDone = events.run(eventsStop.signal);
  const le = config.leaderElection;
  const lease = { namespace: le.resourceNamespace, name: le.resourceName };
  const replica = le.enabled ? { identity: deps.identity, hostname: deps.hostname, lease } : undefined;
  const leader: ThreadDeps = { ...deps, bucket: deps.limiter.shared, hub, health, replica };
  const outcome = { lost: false };
  try {
    return await lead(leader, deps.identity, signal, outcome);
  } finally {
    eventsStop.abort();
    // Leadership lost: out at once, as upstream's OnStoppedLeading, with nothing more written (the
    // events' flush and the provider's close would keep in-flight syncs alive beside a new leader).
    if (!outcome.lost) await eventsDone.then(() => provider.close?.());
    await server?.stop();
    logger.debug(`API requests sent: ${await requestTotals(deps.metrics)}`);
  }
}

/** `GET 200=12, PATCH 409=1, …` from `rest_client_requests_total`, for a debug line at exit. */
async function requestTotals(metrics: Metrics): Promise<string> {
  const { values } = await metrics.restRequests.get();
  return values.map((v) => `${v.labels.method} ${v.labels.code}=${v.value}`).join(", ") || "none";
}

/**
 * The controllers, in this thread or in worker threads (`--controller-threads`); resolves whether their
 * work is all over (see `runControllers`).
 */
function runAll(deps: ThreadDeps, signal: AbortSignal): Promise<boolean> {
  return deps.config.controllerThreads > 0 ? runControllerThreads(deps, signal) : runControllers(deps, signal);
}

function exitAfter(run: Promise<unknown>, logger: Logger): Promise<ManagerExit> {
  return run.then(
    () => 0,
    (error: unknown) => {
      if (error instanceof ControllerConfigError) {
        logger.error(error.message);
        return 2;
      }
      logger.error(`${errorMessage(error)}; exiting`);
      return 1;
    },
  );
}

/**
 * The Lease's own client, as upstream's `leader-election` clientset: the same identity and limits, but a
 * token bucket and connections of its own, so a renewal never waits behind the controllers' writes (with
 * the default QPS 20, a burst of Node writes holds reservations for seconds, up to the renew deadline).
 * Each request gets half the renew deadline (at least 1 s), as upstream's `NewFromKubeconfig`, so one
 * request lost on the way leaves time for another before the deadline.
 */
export function leaderElectionClient(deps: Pick<ProcessDeps, "config" | "connection" | "factory">): KubeApi {
  const limiter = TokenBucket.create(deps.config.kubeApiQps, deps.config.kubeApiBurst);
  const timeoutMs = Math.max(deps.config.leaderElection.renewDeadlineMs / 2, 1000);
  const agent = `${userAgent()}/leader-election`;
  return deps.factory.api(deps.connection, limiter, { agent, ownConnections: true, timeoutMs });
}

/** Handed back only once nothing of ours is in flight: a standby would otherwise lead beside a sync. */
async function handBack(deps: ThreadDeps, elector: LeaderElector, ending: Ending): Promise<void> {
  const le = deps.config.leaderElection;
  const lease = `${le.resourceNamespace}/${le.resourceName}`;
  if (!le.releaseOnShutdown)
    deps.logger.info(`keeping lease ${lease} until it expires (--leader-elect-release-on-shutdown=false)`);
  else if (ending === "drained") await elector.release();
  else if (ending === "in-flight")
    deps.logger.warn(`keeping lease ${lease} until it expires: work was still in flight when the process stopped`);
  else deps.logger.warn(`keeping lease ${lease} until it expires: a controller failed`);
}

/** How the controllers' run ended: all work over, some still in flight, or a failure. */
type Ending = "drained" | "in-flight" | "failed";

async function lead(
  deps: ThreadDeps,
  identity: string,
  signal: AbortSignal,
  outcome: { lost: boolean },
): Promise<ManagerExit> {
  const le = deps.config.leaderElection;
  if (!le.enabled) return exitAfter(runAll(deps, signal), deps.logger);
  if (deps.replica) deps.provider.startReplica?.({ kube: deps.root, ...deps.replica, signal });
  const elector = createLeaderElector({
    api: leaderElectionClient(deps),
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
  // Renewed until the controllers have stopped, their drain included: a Lease left to expire while
  // in-flight syncs finish would let a standby lead beside them.
  const renewal = elector.renew(leading.signal).catch((error: unknown) => leading.abort(error));
  const lost = new Promise<"lost">((resolve) =>
    leading.signal.addEventListener("abort", () => resolve("lost"), { once: true }),
  );
  let ending: Ending = "failed";
  const run = runAll(deps, AbortSignal.any([signal, leading.signal])).then(
    (done) => void (ending = done ? "drained" : "in-flight"),
  );
  const exit = await Promise.race([exitAfter(run, deps.logger), lost]);
  if (exit === "lost") {
    outcome.lost = true;
    // At once, as upstream's OnStoppedLeading exits: the in-flight syncs are not waited for, since a new
    // leader may already be writing.
    deps.logger.error(`${errorMessage(leading.signal.reason)}; exiting so the supervisor restarts this process`);
    return 1;
  }
  leading.abort();
  await renewal;
  await handBack(deps, elector, ending);
  return exit;
}
