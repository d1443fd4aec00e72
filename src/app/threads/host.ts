/**
 * `--controller-threads=N`: the leader runs its controllers in N worker threads instead of its own event
 * loop. Each thread reports its health when it changes (checked every second) and its metrics on request;
 * `/healthz` and `/metrics` of the main thread cover them. Threads start from the main thread's frozen
 * configuration (a structured clone), never from the flags, and reach the API server as this thread
 * resolved it (credentials asked for by message, so no thread loads the kubeconfig library). The informers
 * run here, once for the whole process, and their caches' changes go to each thread's mirror
 * (kube/informer-mirror.ts; a change of a Node's status alone only to the thread that owns the Node). A
 * thread that ends on its own (a crashed controller, an uncaught error) stops every other thread and the
 * manager exits non-zero: never a silently half-running manager.
 */
import type { SharedBucket } from "../../kube/token-bucket.ts";
import type { MetricsHub, MetricsSnapshot } from "../../metrics/hub.ts";
import { ControllerConfigError } from "../../controllers/context.ts";
import {
  encodeBatches,
  forwardInformers,
  type Forwarded,
  type InformerForwarder,
  type Wants,
} from "../../kube/informer-mirror.ts";
import { ownsKey } from "../../kube/shard.ts";
import { DEFAULT_MAX_IN_FLIGHT } from "../../kube/transport.ts";
import { errorMessage } from "../../kube/worker.ts";
import { SharedSemaphore } from "../../util/shared-semaphore.ts";
import { createSharedInformers, type CachedResource } from "../../kube/informers.ts";
import { ControllerCrashedError, type LeaderDeps } from "../run-controllers.ts";
import { describePlan, planThreads, threadsBeyondCpus, type ThreadPlan } from "./plan.ts";
import type { FromWorker, ToWorker } from "./protocol.ts";
import type { ControllerName } from "../../names/controllers.ts";

export interface ThreadDeps extends LeaderDeps {
  /** URL of the worker entry point (`src/worker.ts`, also compiled into the executable). */
  readonly workerUrl: string;
  /** CPUs this process may use (`threadsBeyondCpus`). */
  readonly cpus: number;
  readonly bucket: SharedBucket;
  readonly hub: MetricsHub;
}

type Exit = Extract<FromWorker, { type: "exited" }>;

interface Thread {
  readonly plan: ThreadPlan;
  /** Which Nodes' status changes its mirror takes (`wantsOf`). */
  readonly wants: Wants;
  readonly worker: Worker;
  readonly exited: Promise<Exit>;
  checks: Readonly<Record<string, string | null>>;
  send(message: ToWorker): void;
  metrics(): Promise<MetricsSnapshot>;
}

const METRICS_TIMEOUT_MS = 5000;

/**
 * `all`: every thread of the manager (filled as they are spawned), for the controllers' health checks;
 * `watch`: a thread asks for the informers its controllers read.
 */
function spawn(
  deps: ThreadDeps,
  plan: ThreadPlan,
  all: readonly Thread[],
  watch: (resources: readonly CachedResource[]) => void,
): Thread {
  const worker = new Worker(deps.workerUrl);
  const pending = new Map<number, (m: MetricsSnapshot) => void>();
  let nextId = 0;
  let resolveExit: (exit: Exit) => void = () => undefined;
  const exited = new Promise<Exit>((resolve) => (resolveExit = resolve));
  const thread: Thread = {
    plan,
    wants: wantsOf(plan),
    worker,
    exited,
    checks: {},
    send: (message) => worker.postMessage(message),
    metrics: () =>
      new Promise((resolve) => {
        const id = ++nextId;
        pending.set(id, resolve);
        worker.postMessage({ type: "metrics", id } satisfies ToWorker);
        setTimeout(() => pending.delete(id) && resolve([]), METRICS_TIMEOUT_MS);
      }),
  };
  worker.onmessage = (event: MessageEvent<FromWorker>): void => {
    const m = event.data;
    if (m.type === "status") mirror(deps, all, thread, m.checks);
    else if (m.type === "metrics") pending.get(m.id)?.(m.metrics);
    else if (m.type === "watch") watch(m.resources);
    else if (m.type === "authorization") answerAuthorization(deps, thread, m.id);
    else resolveExit(m);
  };
  worker.onerror = (event: ErrorEvent): void => resolveExit({ type: "exited", code: 1, error: event.message });
  worker.addEventListener("close", () =>
    resolveExit({ type: "exited", code: 1, error: "the thread ended without reporting" }),
  );
  return thread;
}

/** The thread's connection has no credentials of its own: the main thread's loader answers. */
function answerAuthorization(deps: ThreadDeps, thread: Thread, id: number): void {
  deps.connection.authorization().then(
    (value) => thread.send({ type: "authorization", id, value }),
    (error: unknown) => thread.send({ type: "authorization", id, error: errorMessage(error) }),
  );
}

/**
 * The thread's caches count for readiness from the start; its controllers' checks appear as the thread
 * reports them (a controller that skipped itself has none, as in a single thread).
 */
function register(deps: ThreadDeps, thread: Thread): () => void {
  deps.health.add(
    `informer-sync-thread-${thread.plan.thread}`,
    () => thread.checks["informer-sync"] ?? ("informer-sync" in thread.checks ? undefined : "not started"),
  );
  return deps.hub.addSource(() => thread.metrics());
}

/**
 * A controller runs on several threads: its one `/healthz` check fails while it fails on any of them,
 * naming the thread.
 */
function mirror(
  deps: ThreadDeps,
  all: readonly Thread[],
  thread: Thread,
  checks: Readonly<Record<string, string | null>>,
): void {
  for (const name of Object.keys(checks)) {
    if (name !== "informer-sync" && !all.some((t) => name in t.checks))
      deps.health.add(name, () => firstFailure(all, name));
  }
  thread.checks = checks;
}

function firstFailure(all: readonly Thread[], name: string): string | undefined {
  const failing = all.find((t) => typeof t.checks[name] === "string");
  return failing && `thread ${failing.plan.thread}: ${failing.checks[name]}`;
}

/** The process's one set of informers, each batch of changes encoded once and posted to every thread. */
function shareInformers(
  deps: ThreadDeps,
  threads: readonly Thread[],
  stop: AbortSignal,
): { forwarder: InformerForwarder; done: Promise<void> } {
  const informers = createSharedInformers({ api: deps.root, logger: deps.logger, clock: deps.clock });
  const done = informers.run(stop);
  const send = (batch: readonly Forwarded[]): void => {
    const encoded = encodeBatches(
      batch,
      threads.map((t) => t.wants),
    );
    threads.forEach((t, i) => encoded[i] && t.send({ type: "informers", ops: encoded[i] }));
  };
  return { forwarder: forwardInformers({ informers, send }), done };
}

/** A thread that runs a controller over every key takes every Node's status; another, its shard's. */
function wantsOf(plan: ThreadPlan): Wants {
  const { shard, whole } = plan;
  return whole.length > 0 ? () => true : (key) => ownsKey(shard, key);
}

/**
 * Addresses allocated from a table each thread would keep for itself could go to two Services at once:
 * such a provider's load balancers are all ensured on thread 0.
 */
function onThreadZero(deps: ThreadDeps): ControllerName[] {
  return deps.provider.loadBalancer?.allocatesInProcess ? ["service-lb-controller"] : [];
}

/** Resolves true: the threads are terminated at the end, so nothing of theirs is left in flight. */
export async function runControllerThreads(deps: ThreadDeps, signal: AbortSignal): Promise<boolean> {
  const plans = planThreads(deps.config.controllers, deps.config.controllerThreads, onThreadZero(deps));
  const threads: Thread[] = [];
  const informerStop = new AbortController();
  const shared = shareInformers(deps, threads, informerStop.signal);
  const watch = (resources: readonly CachedResource[]): void => shared.forwarder.watch(resources, informerStop.signal);
  for (const plan of plans) threads.push(spawn(deps, plan, threads, watch));
  const unregister = threads.map((t) => register(deps, t));
  start(deps, threads);
  const early = Promise.race(threads.map((t) => t.exited.then((exit) => ({ thread: t, exit }))));
  const first = await Promise.race([early, aborted(signal)]);
  const graceful = await stopThreads(deps, threads);
  shared.forwarder.close();
  informerStop.abort();
  for (const t of threads) t.worker.terminate();
  unregister.forEach((remove) => remove());
  await shared.done;
  if (first) throw threadFailure(first.thread, first.exit);
  if (!graceful) deps.logger.warn("controller threads did not finish within the shutdown grace period; stopped them");
  return true;
}

/**
 * The threads share one limit of requests on the wire (the main thread keeps its own, so leader election
 * never waits behind controller writes): a thread with more to write than its share of the keys (the
 * route controller runs on thread 0 alone) takes the slots the others leave free.
 */
function start(deps: ThreadDeps, threads: readonly Thread[]): void {
  const { config, providerConfig, bucket, replica } = deps;
  const { server, tls, proxy } = deps.connection;
  const connection = { server, tls, proxy };
  const wire = SharedSemaphore.create(DEFAULT_MAX_IN_FLIGHT).shared;
  for (const t of threads) {
    const { thread, controllers, shard, whole } = t.plan;
    const message = { config, providerConfig, thread, controllers, shard, whole, bucket, wire, connection, replica };
    t.send({ type: "start", ...message });
  }
  deps.logger.info(describePlan(threads.map((t) => t.plan)));
  const beyond = threadsBeyondCpus(threads.length, deps.cpus);
  if (beyond) deps.logger.warn(beyond);
}

function aborted(signal: AbortSignal): Promise<undefined> {
  return new Promise((resolve) =>
    signal.aborted ? resolve(undefined) : signal.addEventListener("abort", () => resolve(undefined), { once: true }),
  );
}

/** Asks every thread to stop; true when all have exited within the grace period (and a little more). */
async function stopThreads(deps: ThreadDeps, threads: readonly Thread[]): Promise<boolean> {
  for (const t of threads) t.send({ type: "stop" });
  const exited = Promise.all(threads.map((t) => t.exited)).then(() => true);
  return Promise.race([exited, deps.clock.sleep(deps.config.shutdownGracePeriodMs + 2000).then(() => false)]);
}

function threadFailure(thread: Thread, exit: Exit): Error {
  const what = `controller thread ${thread.plan.thread} [${thread.plan.controllers.join(", ")}]`;
  if (exit.code === 2) return new ControllerConfigError(exit.error ?? `${what} rejected its flags`);
  return new ControllerCrashedError(`${what} ended unexpectedly: ${exit.error ?? `status ${exit.code}`}`);
}
