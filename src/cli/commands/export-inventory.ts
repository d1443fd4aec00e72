/**
 * `cloud-controller-manager export-inventory FILE`: prints a BareMetalMachine object for every machine of a
 * bare-metal cloud-config's `inventory.machines` (`-` reads standard input), with the steps left as
 * comments, so the move to `inventory: { source: cluster }` is reviewed before `kubectl apply -f`. Nothing
 * is written to a cluster.
 */
import { defineCommand } from "citty";
import { exportInventory } from "../../../providers/baremetal/inventory-export.ts";
import { toYaml } from "../../manifests/catalog.ts";
import type { CommandData } from "../cli.ts";
import { fileArgs, readInput, usageFailure } from "./file-input.ts";

export const exportInventoryCommand = defineCommand({
  meta: {
    name: "export-inventory",
    description:
      "Print BareMetalMachine objects for the machines of a bare-metal cloud-config (- reads standard input), " +
      "for inventory: { source: cluster }.",
  },
  args: { file: { type: "positional", description: "the cloud-config file", required: false } },
  run({ rawArgs, data }) {
    const command = data as CommandData;
    const paths = fileArgs(rawArgs);
    const fail = usageFailure(command);
    if (paths.length !== 1) return fail("name one bare-metal cloud-config file (- reads standard input)");
    const path = paths[0] ?? "-";
    let text: string;
    try {
      text = readInput(path);
    } catch (error) {
      return fail(`${path}: ${(error as Error).message}`);
    }
    const result = exportInventory(text);
    if ("errors" in result) return fail(`${path}: ${result.errors.join("; ")}`);
    if (result.objects.length === 0) return fail(`${path}: no machines in inventory.machines`);
    command.io.stdout(result.notes.map((line) => `# ${line}\n`).join("") + toYaml(result.objects));
  },
});
