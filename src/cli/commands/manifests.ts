/**
 * `cloud-controller-manager manifests <kind> [flags]`: prints a ready-to-use file. Every flag that is not
 * a packaging flag is a manager flag the file will run with, validated as the manager would. For
 * `systemd`, input files this host cannot read yet are warned about on stderr, as `install --dry-run` does.
 */
import { defineCommand } from "citty";
import { helpArgs, splitArgs } from "../command-args.ts";
import { packageOptions, PACKAGE_FLAG_LIST } from "../package-options.ts";
import { KINDS, render } from "../../manifests/catalog.ts";
import type { CommandData } from "../cli.ts";
import { kubeconfigReads, serviceReads, unreadable } from "../host-inputs.ts";
import { inputProblems } from "../../manifests/install-plan.ts";

export const manifestsCommand = defineCommand({
  meta: {
    name: "manifests",
    description: `Print a ready-to-use install file: ${KINDS.join(", ")}. Other flags are the manager's own (e.g. --cloud-provider, --cloud-config, --kubeconfig) and go into the file.`,
  },
  args: helpArgs(PACKAGE_FLAG_LIST, { name: "kind", description: KINDS.join(" | ") }),
  run({ rawArgs, data }) {
    const command = data as CommandData;
    const result = packageOptions(splitArgs(rawArgs, PACKAGE_FLAG_LIST), command.builtins.providers);
    if (!result.ok) {
      for (const line of result.errors) command.io.stderr(`error: ${line}\n`);
      command.exitCode = 2;
      return;
    }
    if (result.kind === "systemd") {
      const { warnings } = inputProblems(unreadable(serviceReads(result.options)), true);
      for (const line of warnings) command.io.stderr(`warning: ${line}\n`);
    }
    command.io.stdout(render(result.kind, { ...result.options, indirectFiles: kubeconfigReads(result.options) }));
  },
});
