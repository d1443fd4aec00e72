/**
 * A controller thread: it rebuilds the manager's configuration from the same flags, builds its own API
 * clients (drawing from the main thread's token bucket through shared memory), caches, event sink and
 * provider instance, and runs the controllers it was given exactly as the single-thread manager would.
 * Leader election and serving stay in the main thread.
 */
import type { Builtins } from "../../cli/run.ts";
import { prepare } from "../../cli/run.ts";
import { resolveConnection } from "../../kube/connection.ts";
import { createEventSink } from "../../kube/events.ts";
import { TokenBucket } from "../../kube/token-bucket.ts";
import { errorMessage } from "../../kube/worker.ts";
import { createLogger } from "../../log/logger.ts";
import { createLogSink } from "../../log/sink.ts";
import { createMetrics } from "../../metrics/metrics.ts";
import { createHealthRegistry } from "../../serving/health.ts";
import { realClock } from "../../util/clock.ts";
import { clientFactory, controllerClients } from "../clients.ts";
import { ControllerConfigError } from "../context.ts";
import { providerContext } from "../provider-context.ts";
import { runControllers, type LeaderDeps } from "../run-controllers.ts";
import type { FromWorker, ToWorker } from "./protocol.ts";

export interface WorkerScope {
  postMessage(message: FromWorker): void;
  onMessage(handler: (message: ToWorker) => void): void;
}

const STATUS_EVERY_MS = 1000;

/** Everything a thread builds for itself from the manager's flags. */
async function threadDeps(start: Extract<ToWorker, { type: "start" }>, builtins: Builtins, scope: WorkerScope): Promise<LeaderDeps> {
  const prepared = prepare(start.argv, builtins);
  if (!prepared.ok) throw new ControllerConfigError(prepared.errors.join("; "));
  const { config } = prepared;
  const sink = createLogSink({ ...config.logOutput, stdout: (t) => void process.stdout.write(t), stderr: (t) => void process.stderr.write(t) });
  const logger = createLogger({ verbosity: config.verbosity, format: config.loggingFormat, write: (line, error) => sink.write(line, error) }).withTag(`thread-${start.thread}`);
  const metrics = createMetrics();
  scope.onMessage((m) => {
    if (m.type === "metrics") void metrics.registry.getMetricsAsJSON().then((snapshot) => scope.postMessage({ type: "metrics", id: m.id, metrics: snapshot }));
  });
  const connection = await resolveConnection({ kubeconfig: config.kubeconfig, master: config.master });
  const limiter = TokenBucket.attach(start.bucket);
  const factory = clientFactory(metrics);
  const root = factory.api(connection, limiter);
  return {
    config,
    logger,
    metrics,
    clock: realClock,
    factories: builtins.controllers,
    health: createHealthRegistry({}),
    root,
    events: createEventSink({ api: root, logger: logger.withTag("events"), host: `thread-${start.thread}`, onDrop: (reason) => metrics.eventsDropped.inc({ reason }) }),
    provider: prepared.createProvider(providerContext({ config, logger, metrics })),
    clients: () => controllerClients({ enabled: config.useServiceAccountCredentials, root, connection, limiter, factory, namespace: config.leaderElection.resourceNamespace, clock: realClock, logger }),
    only: new Set(start.controllers),
  };
}

async function runThread(start: Extract<ToWorker, { type: "start" }>, builtins: Builtins, scope: WorkerScope, stop: AbortSignal): Promise<void> {
  const deps = await threadDeps(start, builtins, scope);
  const report = (): void => scope.postMessage({ type: "status", checks: nullable(deps.health.snapshot()) });
  const status = setInterval(report, STATUS_EVERY_MS);
  const eventsStop = new AbortController();
  const eventsDone = deps.events.run(eventsStop.signal);
  try {
    await runControllers(deps, stop);
  } finally {
    clearInterval(status);
    report();
    eventsStop.abort();
    await eventsDone;
    await deps.provider.close?.();
  }
}

function nullable(checks: Record<string, string | undefined>): Record<string, string | null> {
  return Object.fromEntries(Object.entries(checks).map(([k, v]) => [k, v ?? null]));
}

/** Waits for `start`, runs until `stop`, then reports how it ended. */
export function workerMain(scope: WorkerScope, builtins: Builtins): void {
  const stop = new AbortController();
  scope.onMessage((message) => {
    if (message.type === "stop") stop.abort();
    if (message.type !== "start") return;
    runThread(message, builtins, scope, stop.signal).then(
      () => scope.postMessage({ type: "exited", code: 0 }),
      (error: unknown) => scope.postMessage({ type: "exited", code: error instanceof ControllerConfigError ? 2 : 1, error: errorMessage(error) }),
    );
  });
}
