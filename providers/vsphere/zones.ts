/**
 * Zone and region from vSphere tags, as the upstream CPI reads them (its GetZoneByProviderID and
 * LookupZoneByMoref): only with both tag categories configured, and only from one chain of objects that
 * carries a tag of each. The chains are tried in upstream's order: the VM's host and its parents (cluster,
 * folders, datacenter), then its resource pool and its parents, then the VM and its folders. Within a
 * chain the nearest tag of a category wins.
 */
import { refKey, type EntityParent, type VmDetails } from "./queries.ts";
import type { MoRef } from "./soap-xml.ts";

export interface Topology {
  readonly zone: string;
  readonly region: string;
}

/** `start` and its ancestors, nearest first; `parents` holds every known entity's parent. */
function ancestors(start: MoRef | undefined, parents: ReadonlyMap<string, EntityParent>): MoRef[] {
  const chain: MoRef[] = [];
  const seen = new Set<string>();
  for (let at = start; at && !seen.has(refKey(at)); at = parents.get(refKey(at))?.parent) {
    seen.add(refKey(at));
    chain.push(at);
  }
  return chain;
}

/** The chains whose tags count for `vm`, in the order they are tried; a VM without a host or pool has fewer. */
export function topologyChains(vm: VmDetails, parents: ReadonlyMap<string, EntityParent>): MoRef[][] {
  const chains = [ancestors(vm.host, parents), ancestors(vm.resourcePool, parents)];
  return [...chains.filter((c) => c.length > 0), [vm.ref, ...ancestors(vm.parent, parents)]];
}

export interface ResolvedTag {
  readonly name: string;
  readonly category: string;
}

export interface TagsOf {
  /** Tag ids attached to each object, keyed by `refKey`. */
  readonly attached: ReadonlyMap<string, readonly string[]>;
  readonly tags: ReadonlyMap<string, ResolvedTag>;
}

/** The name of the nearest tag in `category` on `chain`; undefined when no object of it has one. */
function nearestTag(chain: readonly MoRef[], known: TagsOf, category: string): string | undefined {
  for (const obj of chain) {
    const ids = known.attached.get(refKey(obj)) ?? [];
    const found = ids.map((id) => known.tags.get(id)).find((t) => t?.category === category);
    if (found) return found.name;
  }
  return undefined;
}

/**
 * Zone and region from the first chain that has a tag in each category, or why there is none: upstream's
 * error, so the node stays uninitialised and is retried rather than labelled without a zone.
 */
export function topologyOf(
  chains: readonly (readonly MoRef[])[],
  known: TagsOf,
  categories: Topology,
): Topology | string {
  for (const chain of chains) {
    const zone = nearestTag(chain, known, categories.zone);
    const region = nearestTag(chain, known, categories.region);
    if (zone !== undefined && region !== undefined) return { zone, region };
  }
  const missing = (["zone", "region"] as const).filter(
    (role) => !chains.some((chain) => nearestTag(chain, known, categories[role]) !== undefined),
  );
  if (missing.length > 0) {
    const wanted = missing.map((role) => `${role} category ${categories[role]}`).join(" or the ");
    return `no tag in the ${wanted} on the VM, its host, its resource pool, its folders or their parents`;
  }
  return (
    `the tags in the zone category ${categories.zone} and the region category ${categories.region} are not ` +
    "both on one of: the host and its parents, the resource pool and its parents, the VM and its folders"
  );
}
