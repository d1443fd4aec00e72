/**
 * The migration from a file inventory to BareMetalMachine objects (`cloud-controller-manager
 * export-inventory`), pure: every entry of `inventory.machines` becomes one object whose spec is the entry
 * as written (racks, zones, defaults and `unmatchedNodes` stay in the cloud-config), so the objects read
 * exactly as the file did. A `name` entry is named after its node; a pattern entry `pattern-<NN>-<glob>`,
 * numbered in file order, because objects created in the same second count in name order.
 */
import type { Manifest } from "../../src/kube/objects.ts";
import { parseConfigText } from "../../src/cloud/config-text.ts";
import { isMapping, type Raw } from "../shared/config-reader.ts";
import { GROUP, VERSION } from "../shared/crd.ts";
import { parseBaremetalConfig } from "./config.ts";
import { BARE_METAL_MACHINE_KIND } from "./machine-crd.ts";

export type ExportResult =
  { readonly objects: Manifest[]; readonly notes: string[] } | { readonly errors: readonly string[] };

/** `edge-*` → `edge-x`: a glob as a DNS label, for an object name. */
const globName = (glob: string): string =>
  glob
    .replace(/[*?]/g, "x")
    .replace(/[^a-z0-9-]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40) || "any";

function objectOf(entry: Raw, patternIndex: number, width: number): Manifest {
  const { name, ...rest } = entry;
  const spec = typeof name === "string" ? rest : entry;
  const objectName =
    typeof name === "string"
      ? name
      : `pattern-${String(patternIndex).padStart(width, "0")}-${globName(String(entry.pattern))}`;
  return {
    apiVersion: `${GROUP}/${VERSION}`,
    kind: BARE_METAL_MACHINE_KIND.kind,
    metadata: { name: objectName },
    spec,
  };
}

const NOTE_SOURCE =
  "then, in each replica's cloud-config, replace inventory.machines by source: cluster " +
  "(racks, zones, defaults and unmatchedNodes stay in the file)";

export function exportInventory(text: string): ExportResult {
  const parsed = parseBaremetalConfig(text);
  if (!parsed.ok) return { errors: parsed.errors };
  if (parsed.config.inventory.source === "cluster")
    return { errors: ["inventory.source is already cluster: the machines are BareMetalMachine objects"] };
  const raw = parseConfigText(text);
  const inventory = "raw" in raw && isMapping(raw.raw) && isMapping(raw.raw.inventory) ? raw.raw.inventory : {};
  const entries = (Array.isArray(inventory.machines) ? inventory.machines : []).filter(isMapping);
  const patterns = entries.filter((e) => e.name === undefined).length;
  const width = Math.max(2, String(patterns).length);
  let patternIndex = 0;
  const objects = entries.map((entry) => objectOf(entry, entry.name === undefined ? ++patternIndex : 0, width));
  const notes = [
    `${objects.length} BareMetalMachine object(s) from inventory.machines; review, then kubectl apply -f`,
    NOTE_SOURCE,
  ];
  if (patterns > 1)
    notes.push("pattern objects are tried oldest first, then by name: apply them together, or in the order shown");
  return { objects, notes };
}
