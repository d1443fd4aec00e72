/**
 * The default command: validate everything (flags, cloud-config, kubeconfig), report every problem at once
 * with exit status 2, else run the manager until a signal asks it to stop.
 */
import { readFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { loadConfig, type Config } from "./config.ts";
import type { ProviderRegistry } from "../cloud/registry.ts";
import type { ProviderContext, CloudProvider } from "../cloud/provider.ts";
import type { ControllerFactory } from "../app/context.ts";
import { resolveConnection, type Connection } from "../kube/connection.ts";
import { createLogger } from "../log/logger.ts";
import { createLogSink } from "../log/sink.ts";
import { createMetrics } from "../metrics/metrics.ts";
import { runManager } from "../app/manager.ts";
import { providerContext } from "../app/provider-context.ts";
import { startupProblems } from "../app/startup-checks.ts";
import { realClock } from "../util/clock.ts";

export interface Io {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Aborted on SIGTERM / SIGINT. */
  readonly signal: AbortSignal;
  readonly hostname: string;
  /** URL of the worker-thread entry point, resolved by the entry point itself (it differs once compiled). */
  readonly workerUrl: string;
}

export interface Builtins {
  readonly providers: ProviderRegistry;
  readonly controllers: Readonly<Record<string, ControllerFactory>>;
}

type Prepared = { ok: true; config: Config; createProvider: (c: ProviderContext) => CloudProvider } | { ok: false; errors: string[] };

/** Flags, then the provider's cloud-config; every problem collected. */
export function prepare(argv: readonly string[], builtins: Builtins): Prepared {
  const loaded = loadConfig(argv, builtins.providers.names);
  if (!loaded.ok) return loaded;
  const { config } = loaded;
  let text: string | undefined;
  if (config.cloudConfig !== "") {
    try {
      text = readFileSync(config.cloudConfig, "utf8");
    } catch (error) {
      return { ok: false, errors: [`invalid value ${JSON.stringify(config.cloudConfig)} for flag --cloud-config: cannot read it: ${(error as Error).message}`] };
    }
  }
  const provider = builtins.providers.prepare(config.cloudProvider, text, config.cloudConfig);
  return provider.ok ? { ok: true, config, createProvider: provider.create } : provider;
}

/** The API server connection from --kubeconfig / --master / in-cluster, or the reason there is none. */
export async function connect(config: Config, io: Io): Promise<Connection | string> {
  if (config.kubeconfig === "" && config.master === "" && !io.env.KUBERNETES_SERVICE_HOST) {
    return "--kubeconfig or --master is required when not running in a cluster (no KUBERNETES_SERVICE_HOST)";
  }
  try {
    return await resolveConnection({ kubeconfig: config.kubeconfig, master: config.master });
  } catch (error) {
    const flag = config.kubeconfig !== "" ? `--kubeconfig ${JSON.stringify(config.kubeconfig)}` : "the in-cluster configuration";
    return `invalid ${flag}: ${(error as Error).message}`;
  }
}

/** `reportedVersion`: from `--version=vX.Y.Z…`, the version logged and exported instead of the build's. */
export async function runManagerCommand(argv: readonly string[], io: Io, builtins: Builtins, reportedVersion?: string): Promise<number> {
  const prepared = prepare(argv, builtins);
  if (!prepared.ok) return reject(io, prepared.errors);
  const { config } = prepared;
  const sink = createLogSink({ ...config.logOutput, stdout: io.stdout, stderr: io.stderr });
  const logger = createLogger({ verbosity: config.verbosity, format: config.loggingFormat, write: (line, error) => sink.write(line, error) });
  const metrics = createMetrics({ defaultMetrics: true });
  const provider = prepared.createProvider(providerContext({ config, logger, metrics }));
  const problems = startupProblems(config, provider);
  const connection = await connect(config, io);
  if (typeof connection === "string") problems.push(connection);
  if (problems.length > 0 || typeof connection === "string") {
    await provider.close?.();
    return reject(io, problems);
  }
  const deps = { config, logger, connection, provider, factories: builtins.controllers, metrics, clock: realClock, identity: `${io.hostname}_${randomUUID()}`, hostname: io.hostname, argv, workerUrl: io.workerUrl, version: reportedVersion };
  try {
    return await runManager(deps, io.signal);
  } finally {
    sink.flush();
  }
}

function reject(io: Io, errors: readonly string[]): number {
  for (const line of errors) io.stderr(`error: ${line}\n`);
  return 2;
}
