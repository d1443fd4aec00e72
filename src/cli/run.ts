/**
 * The default command: validate everything (flags, cloud-config, kubeconfig), report every problem at once
 * with exit status 2, else run the manager until a signal asks it to stop.
 */
import { randomUUID } from "node:crypto";
import { buildProcess, type Builtins } from "../app/process.ts";
import { runManager } from "../app/manager.ts";
import type { ReviewConnections } from "../app/serving.ts";
import type { Config } from "../config/config.ts";
import { flagLines } from "../config/flag-dump.ts";
import { prepare } from "../config/prepare.ts";
import type { Connection } from "../kube/connection.ts";
import { resolveConnection } from "../kube/kubeconfig.ts";
import { createLogger } from "../log/logger.ts";
import { createLogSink } from "../log/sink.ts";
import { collectProcessMetrics } from "../metrics/default-metrics.ts";
import { realClock } from "../util/clock.ts";

export type { Builtins } from "../app/process.ts";

export interface Io {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Aborted on SIGTERM / SIGINT. */
  readonly signal: AbortSignal;
  readonly hostname: string;
  /** URL of the worker-thread entry point, resolved by the entry point itself (it differs once compiled). */
  readonly workerUrl: string;
  /** CPUs this process may use (`usableCpus`: the ones it may run on, within its cgroup's CPU quota). */
  readonly cpus: number;
}

/** The API server connection from --kubeconfig / --master / in-cluster, or the reason there is none. */
export async function connect(config: Config, io: Io): Promise<Connection | string> {
  if (config.kubeconfig === "" && config.master === "" && !io.env.KUBERNETES_SERVICE_HOST) {
    return "--kubeconfig or --master is required when not running in a cluster (no KUBERNETES_SERVICE_HOST)";
  }
  try {
    return await resolveConnection({ kubeconfig: config.kubeconfig, master: config.master, env: io.env });
  } catch (error) {
    const flag =
      config.kubeconfig !== ""
        ? `--kubeconfig ${JSON.stringify(config.kubeconfig)}`
        : config.master !== ""
          ? `--master ${JSON.stringify(config.master)}`
          : "the in-cluster configuration";
    return `invalid ${flag}: ${firstLine(error)}`;
  }
}

/** One line: a YAML parser's message goes on with an excerpt of the file. */
function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "";
}

/**
 * The delegated-auth kubeconfigs of the secure port (none when it is off), resolved before anything starts
 * so a bad one is a start-up error naming its flag, with the other problems.
 */
export async function reviewConnections(
  serving: Config["serving"],
): Promise<{ reviews: ReviewConnections; errors: string[] }> {
  const errors: string[] = [];
  const resolve = async (flag: string, path: string): Promise<Connection | undefined> => {
    if (path === "" || serving.securePort === 0) return undefined;
    try {
      return await resolveConnection({ kubeconfig: path, master: "" });
    } catch (error) {
      errors.push(`invalid --${flag} ${JSON.stringify(path)}: ${firstLine(error)}`);
      return undefined;
    }
  };
  const authentication = await resolve("authentication-kubeconfig", serving.authenticationKubeconfig);
  const authorization = await resolve("authorization-kubeconfig", serving.authorizationKubeconfig);
  return { reviews: { authentication, authorization }, errors };
}

/** `reportedVersion`: from `--version=vX.Y.Z…`, the version logged and exported instead of the build's. */
export async function runManagerCommand(
  argv: readonly string[],
  io: Io,
  builtins: Builtins,
  reportedVersion?: string,
): Promise<number> {
  const prepared = prepare(argv, builtins.providers);
  if (!prepared.ok) return reject(io, prepared.errors);
  const { config, providerConfig } = prepared;
  const sink = createLogSink({ ...config.logOutput, stdout: io.stdout, stderr: io.stderr });
  const write = (line: string, error: boolean): void => sink.write(line, error);
  const logger = createLogger({ verbosity: config.verbosity, format: config.loggingFormat, write });
  if (config.verbosity >= 1) for (const line of flagLines(argv)) logger.info(line);
  const built = await buildProcess({
    config,
    providerConfig,
    builtins,
    logger,
    clock: realClock,
    connect: () => connect(config, io),
    host: io.hostname,
    defaultMetrics: collectProcessMetrics,
    env: io.env,
  });
  const { reviews, errors } = await reviewConnections(config.serving);
  if (!built.ok || errors.length > 0) {
    if (built.ok) await built.deps.provider.close?.();
    sink.flush();
    return reject(io, [...(built.ok ? [] : built.errors), ...errors]);
  }
  const identity = `${io.hostname}_${randomUUID()}`;
  try {
    return await runManager(
      {
        ...built.deps,
        identity,
        hostname: io.hostname,
        workerUrl: io.workerUrl,
        cpus: io.cpus,
        reviews,
        version: reportedVersion,
      },
      io.signal,
    );
  } finally {
    sink.flush();
  }
}

function reject(io: Io, errors: readonly string[]): number {
  for (const line of errors) io.stderr(`error: ${line}\n`);
  return 2;
}
