/**
 * Pools from MetalLB and kube-vip-cloud-provider, as this project's AddressPool objects, for a reviewable
 * migration (`cloud-controller-manager import-pools`). Read: MetalLB `IPAddressPool` (metallb.io/v1beta1)
 * and `L2Advertisement`/`BGPAdvertisement`, and kube-vip's ConfigMap (`kubevip` in kube-system) with
 * `cidr-<ns>`, `range-<ns>`, `cidr-global`, `range-global`, `allow-share-<ns>` and `allow-share-global`.
 * What has no equivalent is listed in the notes, never dropped silently; nothing is written to a cluster.
 */
import type { KubeObject } from "../../../src/kube/objects.ts";
import { formatIP, lastAddress, parseCIDR } from "../../../src/net/ip.ts";
import { isJsonObject } from "../../../src/util/json.ts";
import { GROUP, VERSION } from "../crd.ts";

export interface ImportResult {
  readonly pools: KubeObject[];
  /** One line each: what was carried over with a change, or not at all. */
  readonly notes: string[];
}

type Raw = Record<string, unknown>;

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
const nameOf = (o: Raw): string =>
  isJsonObject(o.metadata) && typeof o.metadata.name === "string" ? o.metadata.name : "";

function addressPool(name: string, spec: Raw, source: string): KubeObject {
  return {
    apiVersion: `${GROUP}/${VERSION}`,
    kind: "AddressPool",
    metadata: { name, annotations: { [`${GROUP}/imported-from`]: source } },
    spec,
  } as KubeObject;
}

/** A MetalLB IPAddressPool: addresses, autoAssign, avoidBuggyIPs and serviceAllocation carry over. */
function fromMetalLbPool(o: Raw): KubeObject {
  const name = nameOf(o);
  const spec = isJsonObject(o.spec) ? o.spec : {};
  const allocation = isJsonObject(spec.serviceAllocation) ? spec.serviceAllocation : {};
  const out: Raw = { addresses: strings(spec.addresses) };
  if (spec.autoAssign === false) out.autoAssign = false;
  if (spec.avoidBuggyIPs === true) out.avoidBuggyIPs = true;
  if (typeof allocation.priority === "number") out.priority = allocation.priority;
  if (strings(allocation.namespaces).length > 0) out.namespaces = strings(allocation.namespaces);
  if (Array.isArray(allocation.namespaceSelectors)) out.namespaceSelectors = allocation.namespaceSelectors;
  if (Array.isArray(allocation.serviceSelectors)) out.serviceSelectors = allocation.serviceSelectors;
  return addressPool(name, out, `metallb.io/IPAddressPool ${name}`);
}

function advertisementNote(o: Raw, kind: string): string {
  const spec = isJsonObject(o.spec) ? o.spec : {};
  const pools = strings(spec.ipAddressPools);
  const which = pools.length > 0 ? `pools ${pools.join(", ")}` : "every pool";
  return (
    `${kind} ${nameOf(o)} (${which}): announcing is not this manager's job; keep MetalLB's speaker or ` +
    "kube-vip announcing (the addresses are written to kube-vip.io/loadbalancerIPs)"
  );
}

const KUBE_VIP_KEY = /^(cidr|range)-(.+)$/;
const ALLOW_SHARE = "allow-share-";
/** kube-vip's global settings: `search-order: desc` hands out the highest address first. */
const SEARCH_ORDER = "search-order";
/** `"true"`: kube-vip hands out neither the first nor the last address of an IPv4 CIDR (but a /31, /32). */
const SKIP_END_IPS = "skip-end-ips-in-cidr";

/**
 * An IPv4 CIDR of a `cidr-*` key under `skip-end-ips-in-cidr`, as the range kube-vip offers. kube-vip first
 * merges a key's CIDRs into the fewest prefixes, so two that merge (10.0.0.0/25 and 10.0.0.128/25) lose only
 * the merged ends there, and each its own ends here: the pool offers at most what kube-vip did, never more.
 */
function withoutEnds(text: string): string {
  const cidr = parseCIDR(text);
  if (!cidr || cidr.family !== 4 || cidr.prefix >= 31) return text;
  const [first, last] = [cidr.base + 1n, lastAddress(cidr) - 1n].map((value) => formatIP({ family: 4, value }));
  return `${first}-${last}`;
}

/**
 * kube-vip's ConfigMap: one pool per namespace (and `global`), CIDRs and ranges together. kube-vip never
 * hands out IPv4 addresses ending in .0 or .255, so every pool avoids them (`avoidBuggyIPs`), and its
 * global `search-order: desc` becomes each pool's `allocationOrder: Descending`. A namespace shares as its
 * `allow-share-<ns>` says, else as `allow-share-global` says (kube-vip's getConfig falls back so).
 */
function fromKubeVip(o: Raw, notes: string[]): KubeObject[] {
  const data = isJsonObject(o.data) ? o.data : {};
  const descending = data[SEARCH_ORDER] === "desc";
  const { byNamespace, sharing } = readKubeVipData(data, notes);
  const shares = (ns: string): boolean => sharing.get(ns) ?? sharing.get("global") ?? false;
  for (const ns of sharing.keys()) {
    const used = byNamespace.has(ns) || (ns === "global" && [...byNamespace.keys()].some((n) => !sharing.has(n)));
    if (!used)
      notes.push(`kubevip ${ALLOW_SHARE}${ns}: no cidr-${ns} or range-${ns} pool to share addresses of, ignored`);
  }
  const source = `ConfigMap ${nameOf(o)} (kube-vip)`;
  return [...byNamespace].map(([ns, addresses]) =>
    addressPool(`kubevip-${ns}`, kubeVipSpec(ns, addresses, { descending, sharing: shares(ns) }), source),
  );
}

/** Go's strconv.ParseBool, which kube-vip reads `allow-share-*` with; undefined where it fails. */
function parseGoBool(value: unknown): boolean | undefined {
  if (typeof value !== "string") return undefined;
  if (["1", "t", "T", "TRUE", "true", "True"].includes(value)) return true;
  if (["0", "f", "F", "FALSE", "false", "False"].includes(value)) return false;
  return undefined;
}

/**
 * `allow-share-<ns>` as kube-vip reads it. A value ParseBool refuses is false there (the key still hides
 * `allow-share-global`), so the pool does not share, with a note.
 */
function readAllowShare(key: string, value: unknown, notes: string[]): boolean {
  const parsed = parseGoBool(value);
  if (parsed === undefined)
    notes.push(`kubevip ${key}: ${JSON.stringify(value)} is not a boolean (as Go's ParseBool reads), so no sharing`);
  return parsed ?? false;
}

/** The addresses of each namespace (and `global`), and each `allow-share-<ns>` read. */
function readKubeVipData(
  data: Raw,
  notes: string[],
): { byNamespace: Map<string, string[]>; sharing: Map<string, boolean> } {
  const byNamespace = new Map<string, string[]>();
  const sharing = new Map<string, boolean>();
  const skipEnds = data[SKIP_END_IPS] === "true";
  for (const [key, value] of Object.entries(data)) {
    const match = KUBE_VIP_KEY.exec(key);
    if (match && typeof value === "string") {
      const ns = match[2]!;
      const addresses = addressList(value).map((a) => (skipEnds && match[1] === "cidr" ? withoutEnds(a) : a));
      byNamespace.set(ns, [...(byNamespace.get(ns) ?? []), ...addresses]);
    } else if (key.startsWith(ALLOW_SHARE)) {
      sharing.set(key.slice(ALLOW_SHARE.length), readAllowShare(key, value, notes));
    } else if (key !== SEARCH_ORDER && key !== SKIP_END_IPS) notes.push(`kubevip ${key}: not a pool key, ignored`);
  }
  return { byNamespace, sharing };
}

const addressList = (value: string): string[] =>
  value
    .split(",")
    .map((a) => a.trim())
    .filter((a) => a !== "");

function kubeVipSpec(ns: string, addresses: string[], o: { descending: boolean; sharing: boolean }): Raw {
  const spec: Raw = ns === "global" ? { addresses } : { addresses, namespaces: [ns] };
  spec.avoidBuggyIPs = true;
  if (o.descending) spec.allocationOrder = "Descending";
  if (o.sharing) spec.implicitSharing = true;
  return spec;
}

/** Every object of a `kubectl get -o yaml` dump, with `List` items flattened. */
function flatten(documents: readonly unknown[]): Raw[] {
  return documents.flatMap((d) => {
    if (!isJsonObject(d)) return [];
    return d.kind === "List" || Array.isArray(d.items) ? flatten(Array.isArray(d.items) ? d.items : []) : [d];
  });
}

function convertOne(o: Raw, notes: string[]): KubeObject[] {
  const group = typeof o.apiVersion === "string" ? o.apiVersion.split("/")[0] : "";
  if (group === "metallb.io" && o.kind === "IPAddressPool") return [fromMetalLbPool(o)];
  if (group === "metallb.io" && (o.kind === "L2Advertisement" || o.kind === "BGPAdvertisement")) {
    notes.push(advertisementNote(o, String(o.kind)));
    return [];
  }
  if (o.kind === "ConfigMap" && nameOf(o) === "kubevip") return fromKubeVip(o, notes);
  notes.push(`${String(o.kind)} ${nameOf(o)}: not a MetalLB pool or the kubevip ConfigMap, ignored`);
  return [];
}

export function importPools(documents: readonly unknown[]): ImportResult {
  const notes: string[] = [];
  const objects = flatten(documents);
  const pools = objects.flatMap((o) => convertOne(o, notes));
  if (objects.some((o) => o.kind === "IPAddressPool"))
    notes.push(
      "Services keep their MetalLB annotations: metallb.io/loadBalancerIPs, metallb.io/address-pool and " +
        "metallb.io/allow-shared-ip (and the metallb.universe.tf/ forms) are read as aliases of the provider's own",
    );
  return { pools, notes };
}
