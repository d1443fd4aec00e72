/**
 * A controller thread: it receives the manager's frozen configuration (never re-reading flags or files),
 * builds its own process dependencies with the same `buildProcess` as the main thread (drawing from the
 * main thread's token bucket through shared memory), and runs the controllers it was given exactly as the
 * single-thread manager would, on its share of their keys. Leader election and serving stay in the main thread,
 * and so do the informers: the thread's controllers read a mirror of the main thread's caches.
 */
import { ControllerConfigError } from "../../controllers/context.ts";
import { cachedAuthorization, type Connection } from "../../kube/connection.ts";
import { createMirrorInformers, type MirrorInformers, type MirrorOp } from "../../kube/informer-mirror.ts";
import { errorMessage } from "../../kube/worker.ts";
import { createLogger, type Logger } from "../../log/logger.ts";
import { createLogSink } from "../../log/sink.ts";
import { createHealthRegistry } from "../../serving/health.ts";
import { deepFreeze } from "../../util/freeze.ts";
import { realClock } from "../../util/clock.ts";
import { buildProcess, type Builtins } from "../process.ts";
import { runControllers, type LeaderDeps } from "../run-controllers.ts";
import type { FromWorker, ThreadStart, ToWorker } from "./protocol.ts";

export interface WorkerScope {
  postMessage(message: FromWorker): void;
  onMessage(handler: (message: ToWorker) => void): void;
}

const STATUS_EVERY_MS = 1000;

/**
 * Everything a thread builds for itself from the configuration it was sent. `onSynced`: a cache of the
 * mirror has just synced.
 */
async function threadDeps(
  start: ThreadStart,
  builtins: Builtins,
  scope: WorkerScope,
  onSynced: () => void,
): Promise<LeaderDeps> {
  const config = deepFreeze(start.config);
  const host = `thread-${start.thread}`;
  const sink = createLogSink({
    ...config.logOutput,
    stdout: (t) => void process.stdout.write(t),
    stderr: (t) => void process.stderr.write(t),
  });
  const write = (line: string, error: boolean): void => sink.write(line, error);
  const logger = createLogger({ verbosity: config.verbosity, format: config.loggingFormat, write }).withTag(host);
  const informers = mirrorOf(scope, logger, onSynced);
  const built = await buildProcess({
    config,
    providerConfig: deepFreeze(start.providerConfig),
    builtins,
    logger,
    clock: realClock,
    connect: () => Promise.resolve(threadConnection(start, scope)),
    bucket: start.bucket,
    wire: start.wire,
    host,
    share: 1 / start.shard.count,
    // A thread's environment is the process's (the manager's, read by the thread's entry point).
    env: process.env,
  });
  if (!built.ok) throw new ControllerConfigError(built.errors.join("; "));
  const { metrics } = built.deps;
  scope.onMessage((m) => {
    if (m.type !== "metrics") return;
    void metrics.registry
      .getMetricsAsJSON()
      .then((snapshot) => scope.postMessage({ type: "metrics", id: m.id, metrics: snapshot }));
  });
  const only = new Set(start.controllers);
  const { shard, replica } = start;
  const whole = new Set(start.whole);
  return { ...built.deps, health: createHealthRegistry({}), only, shard, whole, replica, informers };
}

/** The main thread's connection; its Authorization header asked for by message, reused for a while. */
function threadConnection(start: ThreadStart, scope: WorkerScope): Connection {
  const pending = new Map<number, { resolve: (v?: string) => void; reject: (e: Error) => void }>();
  let nextId = 0;
  scope.onMessage((m) => {
    if (m.type !== "authorization") return;
    const waiting = pending.get(m.id);
    pending.delete(m.id);
    if (m.error === undefined) waiting?.resolve(m.value);
    else waiting?.reject(new Error(m.error));
  });
  const ask = (): Promise<string | undefined> =>
    new Promise((resolve, reject) => {
      const id = ++nextId;
      pending.set(id, { resolve, reject });
      scope.postMessage({ type: "authorization", id });
    });
  return { ...start.connection, authorization: cachedAuthorization(ask) };
}

/** Listening from the start: the main thread's changes may arrive while the thread still builds. */
export function mirrorOf(scope: WorkerScope, logger: Logger, onSynced: () => void): MirrorInformers {
  const informers = createMirrorInformers({
    logger,
    watch: (resources) => scope.postMessage({ type: "watch", resources }),
  });
  scope.onMessage((m) => {
    if (m.type !== "informers") return;
    const ops = JSON.parse(m.ops) as MirrorOp[];
    informers.apply(ops);
    if (ops.some((op) => op[1] === "synced")) onSynced();
  });
  return informers;
}

async function runThread(start: ThreadStart, builtins: Builtins, scope: WorkerScope, stop: AbortSignal): Promise<void> {
  // Evaluated every second, posted only when it changed: each message wakes the main thread. Also the
  // moment a cache syncs, since readiness waits for every thread's caches (else up to a second late).
  let report = (): void => undefined;
  const deps = await threadDeps(start, builtins, scope, () => report());
  let posted = "";
  report = (): void => {
    const checks = nullable(deps.health.snapshot());
    const encoded = JSON.stringify(checks);
    if (encoded === posted) return;
    posted = encoded;
    scope.postMessage({ type: "status", checks });
  };
  report();
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
      (error: unknown) => {
        const code = error instanceof ControllerConfigError ? 2 : 1;
        scope.postMessage({ type: "exited", code, error: errorMessage(error) });
      },
    );
  });
}
