/**
 * Which datacenters are searched, as upstream's connection manager picks them: every one without a
 * `datacenters` setting, else each configured one that vCenter has, by name or by inventory path
 * (`folder/dc`, with or without the leading `/`, as govmomi's finder takes it). A configured datacenter
 * vCenter lacks does not stop the others from being searched; it only keeps a VM not found in them from
 * being called gone (upstream returns the datacenter's error, never ErrNoVMFound).
 */
import type { DatacenterEntry } from "./queries.ts";
import type { MoRef } from "./soap-xml.ts";

export interface DatacenterSelection {
  readonly refs: readonly MoRef[];
  /** Configured entries vCenter has no datacenter for. */
  readonly missing: readonly string[];
  /** Every datacenter's path, for messages. */
  readonly known: readonly string[];
}

const matches = (entry: string, dc: DatacenterEntry): boolean => {
  const wanted = entry.replace(/^\/+/, "");
  return wanted === dc.name || wanted === dc.path;
};

export function selectDatacenters(all: readonly DatacenterEntry[], configured: readonly string[]): DatacenterSelection {
  const known = all.map((dc) => dc.path);
  if (configured.length === 0) return { refs: all.map((dc) => dc.ref), missing: [], known };
  const chosen = all.filter((dc) => configured.some((entry) => matches(entry, dc)));
  const missing = configured.filter((entry) => !all.some((dc) => matches(entry, dc)));
  return { refs: chosen.map((dc) => dc.ref), missing, known };
}

/** Why a VM not found is not called gone while configured datacenters are missing; undefined when none is. */
export function incompleteSearch(selection: DatacenterSelection): string | undefined {
  if (selection.missing.length === 0) return undefined;
  return (
    `configured datacenter(s) ${selection.missing.join(", ")} not found in vCenter ` +
    `(it has: ${selection.known.join(", ") || "none"}), so a VM not found in the others is not taken for gone`
  );
}
