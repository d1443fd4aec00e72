/**
 * The vSphere cloud-config: upstream cloud-provider-vsphere's `vsphere.conf`, in its YAML form or its INI
 * form (ini-form.ts turns the INI form into the YAML shape), plus this project's `loadBalancers` section
 * (YAML only). Every problem is reported at once, each naming its key. What upstream accepts but this
 * provider refuses is refused by name, with the reason, rather than silently ignored.
 */
import { parseConfigText } from "../../src/cloud/config-text.ts";
import { parseCIDR, type CIDR } from "../../src/net/ip.ts";
import { isMapping, mappingAt, onlyKeys, Problems, type Raw } from "../shared/config-reader.ts";
import { serviceKeys } from "../shared/address-pools/annotations.ts";
import { parseLoadBalancers, type LoadBalancerSettings } from "../shared/address-pools/pools-config.ts";
import { inIniTerms, iniToRaw, looksLikeIni, type IniForm } from "./ini-form.ts";
import { ignoredIn, IGNORED_LABEL_KEYS, IGNORED_SECTIONS } from "./ignored-keys.ts";
import { readVCenter, type VCenterSettings } from "./vcenter-config.ts";
import { isScalar, unspelled, withSpellings } from "./yaml-literals.ts";

export type IpFamily = "ipv4" | "ipv6";

/** Upstream's `nodes:` section: which guest addresses become InternalIP and ExternalIP. */
export interface NodeNetworks {
  /** Subnets tried in order; the first with a guest IP in it names the InternalIP (ExternalIP). */
  readonly internalSubnets: readonly CIDR[];
  readonly externalSubnets: readonly CIDR[];
  readonly internalNetworkName?: string;
  readonly externalNetworkName?: string;
  readonly excludeInternalSubnets: readonly CIDR[];
  readonly excludeExternalSubnets: readonly CIDR[];
}

export interface VSphereConfig {
  readonly vcenter: VCenterSettings;
  /** Tag category names whose tags name the zone and the region; empty: not looked up. */
  readonly labels: { readonly zone: string; readonly region: string };
  readonly nodes: NodeNetworks;
  /** Absent: the provider offers no load balancers. */
  readonly loadBalancers?: LoadBalancerSettings;
  /** Keys of upstream's schema present and not used, one line each, for a warning. */
  readonly ignored: readonly string[];
}

/** Every Service annotation and condition of this provider lives under this prefix. */
export const VSPHERE_KEYS = serviceKeys("vsphere.cloudprovider.io");

export type ParsedConfig =
  { readonly ok: true; readonly config: VSphereConfig } | { readonly ok: false; readonly errors: string[] };

const TOP_KEYS = ["global", "vcenter", "labels", "nodes", "loadBalancers"];
/** Upstream sections refused, with the reason: they ask for what this provider does not do. */
const REFUSED_TOP: Record<string, string> = {
  loadbalancer: "NSX-T load balancers are not supported; use the loadBalancers address pools (YAML form)",
  nsxt: "NSX-T is not supported; load balancers come from the loadBalancers address pools",
  route: "NSX-T pod routes are not implemented; pod routes belong to the CNI (--configure-cloud-routes=false)",
};
const NODE_KEYS = [
  "internalNetworkSubnetCidr",
  "externalNetworkSubnetCidr",
  "internalVmNetworkName",
  "externalVmNetworkName",
  "excludeInternalNetworkSubnetCidr",
  "excludeExternalNetworkSubnetCidr",
];

export function parseVSphereConfig(text: string | undefined): ParsedConfig {
  const p = new Problems();
  const read = readRaw(p, text);
  if (!read) return { ok: false, errors: p.list };
  const { raw, spelling } = read;
  for (const [key, reason] of Object.entries(REFUSED_TOP)) {
    const found = Object.keys(raw).find((k) => k.toLowerCase() === key);
    if (found) p.add(found, `not supported: ${reason}`);
  }
  const ignored = ignoredIn(raw, "", IGNORED_SECTIONS);
  const other = (k: string): boolean => !(k.toLowerCase() in REFUSED_TOP) && !(k.toLowerCase() in IGNORED_SECTIONS);
  onlyKeys(p, Object.fromEntries(Object.entries(raw).filter(([k]) => other(k))), "", TOP_KEYS);
  const labels = mappingAt(p, raw.labels, "labels") ?? {};
  const vcenter = readVCenter(
    p,
    mappingAt(p, raw.global, "global") ?? {},
    mappingAt(p, raw.vcenter, "vcenter") ?? {},
    ignored,
  );
  ignored.push(...ignoredIn(labels, "labels", IGNORED_LABEL_KEYS));
  const inTerms = (lines: string[]): string[] => (spelling ? lines.map((line) => inIniTerms(line, spelling)) : lines);
  const config: VSphereConfig = {
    vcenter,
    labels: readLabels(p, labels),
    nodes: readNodes(p, mappingAt(p, raw.nodes, "nodes") ?? {}),
    loadBalancers: parseLoadBalancers(p, raw.loadBalancers, VSPHERE_KEYS),
    ignored: inTerms(ignored),
  };
  return p.list.length === 0 ? { ok: true, config } : { ok: false, errors: inTerms(p.list) };
}

function readRaw(p: Problems, text: string | undefined): { raw: Raw; spelling?: IniForm["spelling"] } | undefined {
  if (text === undefined || text.trim() === "") {
    p.add("vcenter", "the cloud-config is required: name the vCenter server (--cloud-config=vsphere.conf)");
    return undefined;
  }
  if (looksLikeIni(text)) return iniToRaw(p, text);
  const parsed = parseConfigText(text);
  if ("error" in parsed) p.add("(file)", parsed.error);
  else if (!isMapping(parsed.raw))
    p.add("(file)", "must be a YAML mapping (global, vcenter, labels, nodes) or the INI form");
  else return { raw: withSpellings(parsed.raw, text) };
  return undefined;
}

function readString(p: Problems, raw: Raw, key: string, path: string): string {
  const value = raw[key];
  if (value === undefined || value === null) return "";
  if (typeof value === "string") return value.trim();
  p.add(`${path}.${key}`, isScalar(value) ? unspelled(value) : "must be a string");
  return "";
}

function readLabels(p: Problems, raw: Raw): VSphereConfig["labels"] {
  onlyKeys(p, raw, "labels", ["zone", "region", ...Object.keys(IGNORED_LABEL_KEYS)]);
  return { zone: readString(p, raw, "zone", "labels"), region: readString(p, raw, "region", "labels") };
}

function readCidrs(p: Problems, raw: Raw, key: string): CIDR[] {
  const text = readString(p, raw, key, "nodes");
  if (text === "") return [];
  return text.split(",").flatMap((item) => {
    const cidr = parseCIDR(item.trim());
    if (!cidr) p.add(`nodes.${key}`, `${JSON.stringify(item.trim())} is not a CIDR`);
    return cidr ? [cidr] : [];
  });
}

function readNodes(p: Problems, raw: Raw): NodeNetworks {
  onlyKeys(p, raw, "nodes", NODE_KEYS);
  const name = (key: string): string | undefined => readString(p, raw, key, "nodes") || undefined;
  return {
    internalSubnets: readCidrs(p, raw, "internalNetworkSubnetCidr"),
    externalSubnets: readCidrs(p, raw, "externalNetworkSubnetCidr"),
    internalNetworkName: name("internalVmNetworkName"),
    externalNetworkName: name("externalVmNetworkName"),
    excludeInternalSubnets: readCidrs(p, raw, "excludeInternalNetworkSubnetCidr"),
    excludeExternalSubnets: readCidrs(p, raw, "excludeExternalNetworkSubnetCidr"),
  };
}

/** One line for logs: what a configuration holds. */
export function describeConfig(config: VSphereConfig): string {
  const vc = config.vcenter;
  const dcs = vc.datacenters.length > 0 ? vc.datacenters.join(", ") : "every datacenter";
  const lb = config.loadBalancers ? `${config.loadBalancers.pools.length} address pool(s)` : "no load balancers";
  const { zone, region } = config.labels;
  const categories = `zone category ${zone || "(none)"}, region category ${region || "(none)"}`;
  return `vCenter ${vc.server}:${vc.port} (${dcs}), ${categories}, ${lb}`;
}
