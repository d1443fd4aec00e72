/**
 * `cloud-controller-manager install systemd [flags]`, as root on a control-plane host: checks that the
 * files the service will read are readable, writes the unit, its environment file and its sysusers.d
 * entry, and prints the next steps. It never calls systemctl. `--dry-run` prints instead of writing, and
 * only warns about input files not in place yet; `--root` writes under another directory (an image being
 * built, a test).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { defineCommand } from "citty";
import { helpArgs, ownBool, ownValue, splitArgs, type OwnFlag, type SplitArgs } from "../command-args.ts";
import { packageOptions, PACKAGE_FLAGS } from "../package-options.ts";
import type { CommandData } from "../cli.ts";
import type { Builtins } from "../run.ts";
import { serviceReads, unreadable } from "../host-inputs.ts";
import type { HostFile, PackageOptions } from "../../manifests/options.ts";
import { inputProblems, installPlan, renderNextSteps, type PlannedFile } from "../../manifests/install-plan.ts";

const DRY_RUN: OwnFlag = {
  name: "dry-run",
  type: "bool",
  default: "false",
  usage: "Print what would be written; write nothing.",
};
const ROOT: OwnFlag = {
  name: "root",
  type: "string",
  default: "/",
  usage: "Write the files under this directory instead of / (paths inside them are unchanged).",
};
const OWN_FLAGS: readonly OwnFlag[] = [PACKAGE_FLAGS.binary, PACKAGE_FLAGS.envFile, DRY_RUN, ROOT];

function write(root: string, file: PlannedFile): string {
  const target = join(root, file.path);
  const verb = existsSync(target) ? "replaced" : "wrote";
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, file.content, { mode: file.mode });
  return `${verb} ${target}\n`;
}

interface Validated {
  readonly errors: readonly string[];
  readonly warnings: readonly string[];
  readonly options?: PackageOptions;
  readonly reads: readonly HostFile[];
}

function targetError(target: string | undefined): string {
  return target === undefined
    ? "an install target is required: systemd"
    : `unknown install target ${JSON.stringify(target)} (targets: systemd)`;
}

/**
 * Flags, readability of every file the service reads (a dry run only warns about missing ones), and the
 * cloud-config as the provider parses it when it can be read.
 */
function validate(split: SplitArgs, builtins: Builtins, dryRun: boolean): Validated {
  const target = split.positionals[0];
  if (target !== "systemd") return { errors: [targetError(target)], warnings: [], reads: [] };
  const result = packageOptions(split, builtins.providers);
  if (!result.ok) return { errors: result.errors, warnings: [], reads: [] };
  const { config } = result.options;
  const reads = serviceReads(result.options);
  const missing = unreadable(reads);
  const { errors, warnings } = inputProblems(missing, dryRun);
  const cloudConfigReadable = config.cloudConfig !== "" && !missing.some((f) => f.path === config.cloudConfig);
  if (cloudConfigReadable && errors.length === 0) {
    const text = readFileSync(config.cloudConfig, "utf8");
    const prepared = builtins.providers.parse(config.cloudProvider, text, config.cloudConfig);
    if (!prepared.ok) return { errors: prepared.errors, warnings, options: result.options, reads };
  }
  return { errors, warnings, options: result.options, reads };
}

export const installCommand = defineCommand({
  meta: {
    name: "install",
    description:
      "Install as a systemd unit on this host (as root): `install systemd` with the manager's flags (--cloud-provider, --cloud-config, --kubeconfig, …).",
  },
  args: helpArgs(OWN_FLAGS, { name: "target", description: "systemd" }),
  run({ rawArgs, data }) {
    const command = data as CommandData;
    const { io } = command;
    const split = splitArgs(rawArgs, OWN_FLAGS);
    const flagErrors: string[] = [];
    const dryRun = ownBool(split, DRY_RUN, flagErrors);
    const { errors, warnings, options, reads } = validate(split, command.builtins, dryRun);
    for (const line of warnings) io.stderr(`warning: ${line}\n`);
    if (!options || flagErrors.length + errors.length > 0) {
      for (const line of [...flagErrors, ...errors]) io.stderr(`error: ${line}\n`);
      command.exitCode = 2;
      return;
    }
    const plan = installPlan(
      options,
      reads.map((f) => f.path),
    );
    const root = ownValue(split, ROOT);
    for (const file of plan.files) {
      io.stdout(
        dryRun
          ? `# would write ${join(root, file.path)} (mode ${file.mode.toString(8)}):\n${file.content}\n`
          : write(root, file),
      );
    }
    io.stdout(renderNextSteps(plan));
  },
});
