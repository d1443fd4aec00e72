/**
 * Zone and region from vSphere tags, as the upstream CPI reads them: the tag in the configured category
 * on the nearest object wins, walking the VM's host and its parents (cluster, folders, datacenter) first,
 * then its resource pool, then the VM itself.
 */
import { refKey, type EntityParent, type VmDetails } from "./queries.ts";
import type { MoRef } from "./soap-xml.ts";

/** The objects whose tags count for `vm`, nearest first; `parents` holds every known entity's parent. */
export function topologyChain(vm: VmDetails, parents: ReadonlyMap<string, EntityParent>): MoRef[] {
  const chain: MoRef[] = [];
  const seen = new Set<string>();
  for (let at = vm.host; at && !seen.has(refKey(at)); at = parents.get(refKey(at))?.parent) {
    seen.add(refKey(at));
    chain.push(at);
  }
  if (vm.resourcePool) chain.push(vm.resourcePool);
  chain.push(vm.ref);
  return chain;
}

export interface ResolvedTag {
  readonly name: string;
  readonly category: string;
}

/** The name of the nearest tag in `category`; empty when no object in the chain has one. */
export function nearestTag(
  chain: readonly MoRef[],
  attached: ReadonlyMap<string, readonly string[]>,
  tags: ReadonlyMap<string, ResolvedTag>,
  category: string,
): string {
  if (category === "") return "";
  for (const obj of chain) {
    const found = (attached.get(refKey(obj)) ?? []).map((id) => tags.get(id)).find((t) => t?.category === category);
    if (found) return found.name;
  }
  return "";
}
