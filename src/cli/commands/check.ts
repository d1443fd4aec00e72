/**
 * `cloud-controller-manager check [manager flags] [--output table|json]`: a read-only preflight with the
 * same flags the manager will run with. Exit status 0 when nothing is wrong, 1 when something is, 2 for
 * bad flags and for every input the manager itself would refuse at start (serving files, --cluster-cidr,
 * --kubeconfig), in the same words.
 */
import { defineCommand } from "citty";
import { helpArgs, ownValue, splitArgs, type OwnFlag } from "../command-args.ts";
import { prepare } from "../../config/prepare.ts";
import type { Config } from "../../config/config.ts";
import type { CloudProvider, ProviderContext } from "../../cloud/provider.ts";
import { connect, reviewConnections } from "../run.ts";
import { startupProblems } from "../../app/startup-checks.ts";
import type { CommandData } from "../cli.ts";
import { runPreflight } from "../../check/preflight.ts";
import { failed } from "../../check/findings.ts";
import { OUTPUT_FORMATS, render, type OutputFormat } from "../../check/report.ts";
import { createKubeApi, type KubeApi } from "../../kube/api.ts";
import { TokenBucket } from "../../kube/token-bucket.ts";
import { createTransport } from "../../kube/transport.ts";
import type { Connection } from "../../kube/connection.ts";
import { createLogger } from "../../log/logger.ts";
import { realClock } from "../../util/clock.ts";
import { userAgent } from "../../version.ts";

const OUTPUT: OwnFlag = {
  name: "output",
  type: "string",
  default: "table",
  usage: `Output format: ${OUTPUT_FORMATS.join(", ")}.`,
};

/** The whole preflight gives up after this long (an unreachable server or cloud). */
const TIMEOUT_MS = 60_000;

function flagErrors(rawArgs: readonly string[]): {
  errors: string[];
  format: OutputFormat;
  manager: readonly string[];
} {
  const split = splitArgs(rawArgs, [OUTPUT]);
  const errors = [...split.errors];
  const format = ownValue(split, OUTPUT) as OutputFormat;
  if (!OUTPUT_FORMATS.includes(format))
    errors.push(
      `invalid value ${JSON.stringify(format)} for flag --output: must be one of ${OUTPUT_FORMATS.join(", ")}`,
    );
  if (split.positionals.length > 0)
    errors.push(`"check" does not take any arguments, got ${JSON.stringify(split.positionals)}`);
  return { errors, format, manager: split.manager };
}

/** The provider's context for a preflight: its log lines on stderr, no metrics. */
function quietContext(config: Config, io: CommandData["io"]): ProviderContext {
  const logger = createLogger({ verbosity: config.verbosity, format: config.loggingFormat, write: io.stderr });
  return {
    logger,
    clusterName: config.clusterName,
    namespace: config.leaderElection.resourceNamespace,
    observeCall: (): undefined => undefined,
    observeConfigurationDrift: (): undefined => undefined,
    env: io.env,
  };
}

function checkApi(config: Config, connection: Connection): KubeApi {
  const limiter = TokenBucket.create(config.kubeApiQps, config.kubeApiBurst);
  return createKubeApi(
    createTransport({ connection, limiter, userAgent: userAgent("cloud-controller-manager-check") }),
  );
}

/** Runs every finding and prints the report; exit status 1 when one failed. */
async function preflight(
  command: CommandData,
  format: OutputFormat,
  target: { config: Config; api: KubeApi; provider: CloudProvider },
): Promise<void> {
  const { io, builtins } = command;
  const signal = AbortSignal.any([io.signal, AbortSignal.timeout(TIMEOUT_MS)]);
  const findings = await runPreflight({
    ...target,
    providerRules: builtins.providers.rbacRules(target.config.cloudProvider),
    now: () => realClock.now(),
    signal,
  });
  io.stdout(render(format, findings));
  command.exitCode = failed(findings) ? 1 : 0;
}

export const checkCommand = defineCommand({
  meta: {
    name: "check",
    description:
      "Preflight with the manager's flags: nodes registered without --cloud-provider=external, RBAC gaps, the cloud's configuration and credentials, --cluster-cidr against podCIDRs, another manager holding the Lease.",
  },
  args: helpArgs([OUTPUT]),
  async run({ rawArgs, data }) {
    const command = data as CommandData;
    const { io } = command;
    const usage = (lines: readonly string[]): void => {
      for (const line of lines) io.stderr(`error: ${line}\n`);
      command.exitCode = 2;
    };
    const flags = flagErrors(rawArgs);
    const prepared = prepare(flags.manager, command.builtins.providers);
    if (flags.errors.length > 0 || !prepared.ok)
      return usage([...flags.errors, ...(prepared.ok ? [] : prepared.errors)]);
    const { config } = prepared;
    const provider = await command.builtins.providers.create(prepared.providerConfig, quietContext(config, io));
    // The manager's own start checks (serving files, --cluster-cidr), then the connections, as it reports them.
    const connection = await connect(config, io);
    const reviews = await reviewConnections(config.serving);
    const problems = [
      ...startupProblems(config, provider),
      ...(typeof connection === "string" ? [connection] : []),
      ...reviews.errors,
    ];
    if (problems.length > 0 || typeof connection === "string") {
      await provider.close?.();
      return usage(problems);
    }
    try {
      await preflight(command, flags.format, { config, api: checkApi(config, connection), provider });
    } finally {
      await provider.close?.();
    }
  },
});
