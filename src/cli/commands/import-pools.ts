/**
 * `cloud-controller-manager import-pools FILE...`: prints AddressPool objects converted from MetalLB
 * `IPAddressPool`s and kube-vip's `kubevip` ConfigMap (files as `kubectl get -o yaml` writes them; `-` reads
 * standard input), with what did not carry over as comments, so the migration is reviewed before
 * `kubectl apply -f`. Nothing is written to a cluster.
 */
import { defineCommand } from "citty";
import { importPools } from "../../../providers/shared/address-pools/import.ts";
import { toYaml } from "../../manifests/catalog.ts";
import type { CommandData } from "../cli.ts";
import { fileArgs, readInput, usageFailure } from "./file-input.ts";

/** Every YAML document of each file, or the one line naming the file that could not be read. */
function readDocuments(paths: readonly string[]): { documents: unknown[] } | { error: string } {
  const documents: unknown[] = [];
  for (const path of paths) {
    try {
      const parsed: unknown = Bun.YAML.parse(readInput(path));
      documents.push(...(Array.isArray(parsed) ? (parsed as unknown[]) : [parsed]));
    } catch (error) {
      return { error: `${path}: ${(error as Error).message}` };
    }
  }
  return { documents };
}

export const importPoolsCommand = defineCommand({
  meta: {
    name: "import-pools",
    description:
      "Print AddressPool objects converted from MetalLB IPAddressPools and kube-vip's kubevip ConfigMap " +
      "(YAML files as kubectl get -o yaml writes them; - reads standard input).",
  },
  args: { files: { type: "positional", description: "YAML files to read", required: false } },
  run({ rawArgs, data }) {
    const command = data as CommandData;
    const paths = fileArgs(rawArgs);
    const fail = usageFailure(command);
    if (paths.length === 0) return fail("name the files to import (MetalLB IPAddressPools, the kubevip ConfigMap)");
    const read = readDocuments(paths);
    if ("error" in read) return fail(read.error);
    const { pools, notes } = importPools(read.documents);
    if (pools.length === 0) return fail(`no MetalLB IPAddressPool or kubevip ConfigMap in ${paths.join(", ")}`);
    const header = notes.map((line) => `# ${line}\n`).join("");
    command.io.stdout(header + toYaml(pools));
  },
});
