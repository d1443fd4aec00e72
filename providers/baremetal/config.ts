/**
 * The bare-metal cloud-config (YAML or JSON): an `inventory` of machines (inventory-config.ts) and, when
 * the provider should run load balancers, `loadBalancers` address pools (pools-config.ts). Every problem
 * is reported at once, each naming its field. The same parser checks live edits before they are applied.
 */
import { parseInventory } from "./inventory-config.ts";
import type { Inventory } from "./inventory.ts";
import { isMapping, onlyKeys, Problems } from "../shared/config-reader.ts";
import { parseLoadBalancers, type LoadBalancerSettings } from "../shared/address-pools/pools-config.ts";
import { serviceKeys } from "../shared/address-pools/annotations.ts";
import { parseConfigText } from "../../src/cloud/config-text.ts";

export interface BaremetalConfig {
  readonly inventory: Inventory;
  /** Absent: the provider offers no load balancers. */
  readonly loadBalancers?: LoadBalancerSettings;
}

/** Every Service annotation and condition of this provider lives under this prefix. */
export const BAREMETAL_KEYS = serviceKeys("baremetal.cloudprovider.io");

export type ParsedConfig =
  { readonly ok: true; readonly config: BaremetalConfig } | { readonly ok: false; readonly errors: string[] };

const TOP_KEYS = ["inventory", "loadBalancers"];

export function parseBaremetalConfig(text: string | undefined): ParsedConfig {
  const parsed = parseConfigText(text);
  if ("error" in parsed) return { ok: false, errors: [parsed.error] };
  const raw = parsed.raw ?? {};
  if (!isMapping(raw))
    return { ok: false, errors: ["must be a YAML or JSON mapping with inventory and loadBalancers"] };
  const p = new Problems();
  onlyKeys(p, raw, "", TOP_KEYS);
  const config: BaremetalConfig = {
    inventory: parseInventory(p, raw.inventory),
    loadBalancers: parseLoadBalancers(p, raw.loadBalancers, BAREMETAL_KEYS),
  };
  return p.list.length > 0 ? { ok: false, errors: p.list } : { ok: true, config };
}

/** One line for logs: what a configuration holds. */
export function describeConfig(config: BaremetalConfig): string {
  const inv = config.inventory;
  const lb = config.loadBalancers;
  const lbs = !lb
    ? "no load balancers"
    : lb.source === "cluster"
      ? "address pools from AddressPool objects"
      : `${lb.pools.length} address pool(s)`;
  const bmcs = [...inv.byName.values()].filter((m) => m.bmc).length;
  const power = bmcs > 0 ? `, ${bmcs} with power state from a BMC` : "";
  const machines =
    inv.source === "cluster"
      ? "machines from BareMetalMachine objects"
      : `${inv.byName.size} machine(s), ${inv.patterns.length} pattern(s)${power}`;
  return `${machines}, unmatched nodes: ${inv.unmatchedNodes}, ${lbs}`;
}
