/**
 * Address pools: which addresses a Service may get, and in which order pools are tried. Ranges are kept as
 * bigint intervals, so an IPv6 /64 costs no more than an IPv4 /30. The same `Pool` comes from a
 * cloud-config file or from AddressPool objects (pools-config.ts reads both).
 */
import { formatIP, lastAddress, parseCIDR, parseIP, type IP, type IPFamily } from "../../../src/net/ip.ts";
import { selectorMatches, type LabelSelector } from "../label-selector.ts";

export interface AddressRange {
  readonly family: IPFamily;
  readonly first: bigint;
  readonly last: bigint;
  /** As written in the configuration, for messages. */
  readonly text: string;
}

export type AllocationOrder = "Ascending" | "Descending";

export interface Pool {
  readonly name: string;
  readonly ranges: readonly AddressRange[];
  /** Namespaces the pool serves; with `namespaceSelectors` empty too: every namespace. */
  readonly namespaces: readonly string[];
  /** Namespaces whose labels match any of these are served too (MetalLB `serviceAllocation`). */
  readonly namespaceSelectors: readonly LabelSelector[];
  /** When set, only Services whose labels match one of these are served. */
  readonly serviceSelectors: readonly LabelSelector[];
  /** Lower is tried first (MetalLB's convention); undefined sorts after every number. */
  readonly priority?: number;
  /** False: only Services that ask for this pool or one of its addresses get addresses from it. */
  readonly autoAssign: boolean;
  /** Never hand out IPv4 addresses ending in .0 or .255 (MetalLB's avoidBuggyIPs; kube-vip always does). */
  readonly avoidBuggyIPs: boolean;
  /** Which end of the pool new addresses come from (kube-vip's `search-order=desc` is Descending). */
  readonly allocationOrder: AllocationOrder;
  /**
   * True: a Service whose address this pool no longer offers it (the pool shrank, or stopped serving its
   * namespace) is moved to a new address, with a Warning event. False (default): it keeps the address.
   */
  readonly allowAddressMoves: boolean;
  /**
   * Services of this pool share an address without the sharing annotation when their ports differ
   * (kube-vip-cloud-provider's `allow-share-<namespace>`).
   */
  readonly implicitSharing: boolean;
}

/** Who asks: the namespace (with its labels, for namespace selectors) and the Service's own labels. */
export interface Target {
  readonly namespace: string;
  readonly namespaceLabels: Readonly<Record<string, string>>;
  readonly serviceLabels: Readonly<Record<string, string>>;
}

/** `10.0.0.0/24`, `10.0.0.10-10.0.0.20` (spaces around the dash allowed), or one address. */
export function parseAddressRange(text: string): AddressRange | undefined {
  if (text.includes("/")) {
    const cidr = parseCIDR(text);
    return cidr ? { family: cidr.family, first: cidr.base, last: lastAddress(cidr), text } : undefined;
  }
  const [from, to, extra] = text.split("-");
  const first = from === undefined ? undefined : parseIP(from);
  const last = to === undefined ? first : parseIP(to);
  if (!first || !last || extra !== undefined || first.family !== last.family || first.value > last.value)
    return undefined;
  return { family: first.family, first: first.value, last: last.value, text };
}

export function rangesOverlap(a: AddressRange, b: AddressRange): boolean {
  return a.family === b.family && a.first <= b.last && b.first <= a.last;
}

export function rangeContains(range: AddressRange, ip: IP): boolean {
  return range.family === ip.family && ip.value >= range.first && ip.value <= range.last;
}

/** .0 and .255 IPv4 addresses, which some old network equipment drops. */
export function isBuggyIP(ip: IP): boolean {
  const low = ip.value & 0xffn;
  return ip.family === 4 && (low === 0n || low === 255n);
}

/** Whether `ip` is one of the pool's addresses (an avoided .0/.255 address is not). */
export function poolContains(pool: Pool, ip: IP): boolean {
  return pool.ranges.some((r) => rangeContains(r, ip)) && !(pool.avoidBuggyIPs && isBuggyIP(ip));
}

/** Pools never overlap (checked when they are read), so an address has at most one pool. */
export function poolOf(pools: readonly Pool[], ip: IP): Pool | undefined {
  return pools.find((p) => poolContains(p, ip));
}

/** The pool an address (canonical text) is in, by name. */
export function poolNameOf(pools: readonly Pool[], address: string): string | undefined {
  const ip = parseIP(address);
  return ip ? poolOf(pools, ip)?.name : undefined;
}

/** A pool open to every namespace and every Service. */
export function isOpen(pool: Pool): boolean {
  return pool.namespaces.length === 0 && pool.namespaceSelectors.length === 0 && pool.serviceSelectors.length === 0;
}

function servesNamespace(pool: Pool, target: Target): boolean {
  if (pool.namespaces.length === 0 && pool.namespaceSelectors.length === 0) return true;
  return (
    pool.namespaces.includes(target.namespace) ||
    pool.namespaceSelectors.some((s) => selectorMatches(s, target.namespaceLabels))
  );
}

/** MetalLB's rule: (namespaces OR namespace selectors) AND Service selectors; unset parts allow all. */
export function serves(pool: Pool, target: Target): boolean {
  const service =
    pool.serviceSelectors.length === 0 || pool.serviceSelectors.some((s) => selectorMatches(s, target.serviceLabels));
  return service && servesNamespace(pool, target);
}

/** Whether an address is in a pool that serves `target`. */
export const inServingPool =
  (pools: readonly Pool[], target: Target) =>
  (ip: IP): boolean => {
    const pool = poolOf(pools, ip);
    return pool !== undefined && serves(pool, target);
  };

/** Why `pool` does not serve `target`, phrased to follow "which …". */
export function notServedBecause(pool: Pool, target: Target): string {
  if (!servesNamespace(pool, target)) {
    const names = pool.namespaces.length > 0 ? ` ${pool.namespaces.join(", ")}` : "";
    const selected = pool.namespaceSelectors.length > 0 ? " selected by label" : "";
    return `is reserved for namespace(s)${names}${names && selected ? " and those" : ""}${selected}`;
  }
  return "is reserved for Services selected by label";
}

export function hasFamily(pool: Pool, family: IPFamily): boolean {
  return pool.ranges.some((r) => r.family === family);
}

const byPriority = (a: Pool, b: Pool): number =>
  (a.priority ?? Number.POSITIVE_INFINITY) - (b.priority ?? Number.POSITIVE_INFINITY);

/**
 * The pools to try for a new address of `family`, best first. A Service that names a pool gets only that
 * pool. Otherwise, like MetalLB: pools reserved for the Service (by namespace or selector) first, then
 * pools open to everyone; within each group lower `priority` first, then configuration order;
 * `autoAssign: false` pools skipped.
 */
export function candidatePools(
  pools: readonly Pool[],
  want: { target: Target; family: IPFamily; pool?: string },
): Pool[] {
  const fits = (p: Pool): boolean => hasFamily(p, want.family) && serves(p, want.target);
  if (want.pool !== undefined) return pools.filter((p) => p.name === want.pool && fits(p));
  const usable = pools.filter((p) => p.autoAssign && fits(p));
  const reserved = usable.filter((p) => !isOpen(p)).sort(byPriority);
  const open = usable.filter((p) => isOpen(p)).sort(byPriority);
  return [...reserved, ...open];
}

/** Equal for equal pools (every field, ranges by value). */
export const poolKey = (pool: Pool): string =>
  JSON.stringify(pool, (_key, value: unknown) => (typeof value === "bigint" ? value.toString() : value));

/** Whether two pool sets hand out the same addresses to the same Services, in the same order. */
export const samePools = (a: readonly Pool[], b: readonly Pool[]): boolean =>
  a.length === b.length && a.every((pool, i) => poolKey(pool) === poolKey(b[i] as Pool));

/** Whether some pool matches Namespace labels, so allocation needs the Namespaces' real labels. */
export const selectsNamespaces = (pools: readonly Pool[]): boolean =>
  pools.some((p) => p.namespaceSelectors.length > 0);

/** What of a Service decides which pools can judge it (see `judgingPools`). */
export interface Judged {
  readonly namespace: string;
  readonly serviceLabels: Readonly<Record<string, string>>;
  /** The pool it names, if any. */
  readonly pool?: string;
  /** Addresses it holds, shows or requests. */
  readonly addresses: readonly IP[];
}

/**
 * The pools whose verdict on a Service may turn on its Namespace's labels: those selecting namespaces by
 * label that do not list its namespace, accept its labels, and could give it an address (the pool it
 * names, else any `autoAssign` pool) or judge one it has or asks for. Only these need the Namespace cache.
 */
export function judgingPools(pools: readonly Pool[], service: Judged): Pool[] {
  const offers = (p: Pool): boolean => (service.pool === undefined ? p.autoAssign : p.name === service.pool);
  const judges = (p: Pool): boolean => offers(p) || service.addresses.some((ip) => poolContains(p, ip));
  const accepts = (p: Pool): boolean =>
    p.serviceSelectors.length === 0 || p.serviceSelectors.some((s) => selectorMatches(s, service.serviceLabels));
  const byLabel = (p: Pool): boolean => p.namespaceSelectors.length > 0 && !p.namespaces.includes(service.namespace);
  return pools.filter((p) => byLabel(p) && accepts(p) && judges(p));
}

/** The canonical text of an address: the key of the allocation table. */
export function addressKey(ip: IP): string {
  return formatIP(ip);
}

export const familyName = (family: IPFamily): "IPv4" | "IPv6" => (family === 4 ? "IPv4" : "IPv6");
