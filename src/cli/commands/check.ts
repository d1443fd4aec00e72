/**
 * `cloud-controller-manager check [manager flags] [--output table|json]`: a read-only preflight with the
 * same flags the manager will run with. Exit status 0 when nothing is wrong, 1 when something is, 2 for
 * bad flags.
 */
import { defineCommand } from "citty";
import { helpArgs, ownValue, splitArgs, type OwnFlag } from "../command-args.ts";
import { prepare } from "../../config/prepare.ts";
import { connect } from "../run.ts";
import type { CommandData } from "../cli.ts";
import { runPreflight } from "../../check/preflight.ts";
import { failed } from "../../check/findings.ts";
import { OUTPUT_FORMATS, render, type OutputFormat } from "../../check/report.ts";
import { createKubeApi } from "../../kube/api.ts";
import { TokenBucket } from "../../kube/token-bucket.ts";
import { createTransport } from "../../kube/transport.ts";
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
    const connection = await connect(config, io);
    if (typeof connection === "string") return usage([connection]);
    const api = createKubeApi(
      createTransport({
        connection,
        limiter: TokenBucket.create(config.kubeApiQps, config.kubeApiBurst),
        userAgent: userAgent("cloud-controller-manager-check"),
      }),
    );
    const logger = createLogger({ verbosity: config.verbosity, format: config.loggingFormat, write: io.stderr });
    const quiet = { observeCall: (): undefined => undefined, observeConfigurationDrift: (): undefined => undefined };
    const context = {
      logger,
      clusterName: config.clusterName,
      namespace: config.leaderElection.resourceNamespace,
      ...quiet,
    };
    const provider = command.builtins.providers.create(prepared.providerConfig, context);
    try {
      const signal = AbortSignal.any([io.signal, AbortSignal.timeout(TIMEOUT_MS)]);
      const findings = await runPreflight({
        config,
        providerRules: command.builtins.providers.rbacRules(config.cloudProvider),
        api,
        provider,
        now: () => realClock.now(),
        signal,
      });
      io.stdout(render(flags.format, findings));
      command.exitCode = failed(findings) ? 1 : 0;
    } finally {
      await provider.close?.();
    }
  },
});
