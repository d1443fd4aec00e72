/**
 * `cloud-controller-manager install systemd [flags]`, as root on a control-plane host: checks that the
 * files the service will read are readable, writes the unit, its environment file and its sysusers.d
 * entry, and prints the next steps. It never calls systemctl. `--dry-run` prints instead of writing;
 * `--root` writes under another directory (an image being built, a test).
 */
import { accessSync, constants, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { defineCommand } from "citty";
import { helpArgs, ownBool, ownValue, splitArgs, type OwnFlag, type SplitArgs } from "../command-args.ts";
import { packageOptions, PACKAGE_FLAGS } from "../package-options.ts";
import type { CommandData } from "../cli.ts";
import type { Builtins } from "../run.ts";
import { loadKubeConfig } from "../../kube/connection.ts";
import { hostFiles, type HostFile, type PackageOptions } from "../../manifests/options.ts";
import { installPlan, renderNextSteps, type PlannedFile } from "../../manifests/install-plan.ts";

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

/** Certificate and CA files a kubeconfig names by path: the service must read them too. */
function kubeconfigFiles(path: string): string[] {
  try {
    const kc = loadKubeConfig({ kubeconfig: path, master: "" });
    return [kc.getCurrentCluster()?.caFile, kc.getCurrentUser()?.certFile, kc.getCurrentUser()?.keyFile].filter(
      (f): f is string => !!f,
    );
  } catch {
    return [];
  }
}

/** Every file the service reads, with the flag that brought it in. */
function serviceReads(o: PackageOptions): HostFile[] {
  const direct = hostFiles(o.config);
  const viaKubeconfig = direct
    .filter((f) => f.flag.endsWith("kubeconfig"))
    .flatMap((f) => kubeconfigFiles(f.path).map((path) => ({ flag: f.flag, path })));
  return [...direct, ...viaKubeconfig];
}

function unreadable(files: readonly HostFile[]): string[] {
  return files.flatMap((f) => {
    try {
      accessSync(f.path, constants.R_OK);
      return [];
    } catch (error) {
      return [
        `invalid value ${JSON.stringify(f.path)} for flag --${f.flag}: cannot read it: ${(error as Error).message}`,
      ];
    }
  });
}

function write(root: string, file: PlannedFile): string {
  const target = join(root, file.path);
  const verb = existsSync(target) ? "replaced" : "wrote";
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, file.content, { mode: file.mode });
  return `${verb} ${target}\n`;
}

/** Flags, readability of every file the service reads, and the cloud-config as the provider parses it. */
function validate(
  split: SplitArgs,
  builtins: Builtins,
): { errors: string[]; options?: PackageOptions; reads: HostFile[] } {
  const errors: string[] = [];
  const target = split.positionals[0];
  if (target !== "systemd")
    return {
      errors: [
        target === undefined
          ? "an install target is required: systemd"
          : `unknown install target ${JSON.stringify(target)} (targets: systemd)`,
      ],
      reads: [],
    };
  const result = packageOptions(split, builtins.providers);
  if (!result.ok) return { errors: result.errors, reads: [] };
  const { config } = result.options;
  const reads = serviceReads(result.options);
  errors.push(...unreadable(reads));
  if (config.cloudConfig !== "" && errors.length === 0) {
    const prepared = builtins.providers.parse(
      config.cloudProvider,
      readFileSync(config.cloudConfig, "utf8"),
      config.cloudConfig,
    );
    if (!prepared.ok) errors.push(...prepared.errors);
  }
  return { errors, options: result.options, reads };
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
    const { errors, options, reads } = validate(split, command.builtins);
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
