/**
 * Address pools: which addresses a Service may get, and in which order pools are tried. Ranges are kept as
 * bigint intervals, so an IPv6 /64 costs no more than an IPv4 /30.
 */
import { formatIP, lastAddress, parseCIDR, parseIP, type IP, type IPFamily } from "../../../src/net/ip.ts";

export interface AddressRange {
  readonly family: IPFamily;
  readonly first: bigint;
  readonly last: bigint;
  /** As written in the cloud-config, for messages. */
  readonly text: string;
}

export interface Pool {
  readonly name: string;
  readonly ranges: readonly AddressRange[];
  /** Namespaces the pool is reserved for; empty: every namespace. */
  readonly namespaces: readonly string[];
  /** Lower is tried first (MetalLB's convention); undefined sorts after every number. */
  readonly priority?: number;
  /** False: only Services that ask for this pool or one of its addresses get addresses from it. */
  readonly autoAssign: boolean;
}

/** `10.0.0.0/24`, `10.0.0.10-10.0.0.20`, or one address. */
export function parseAddressRange(text: string): AddressRange | undefined {
  if (text.includes("/")) {
    const cidr = parseCIDR(text);
    return cidr ? { family: cidr.family, first: cidr.base, last: lastAddress(cidr), text } : undefined;
  }
  const [from, to, extra] = text.split("-");
  const first = from === undefined ? undefined : parseIP(from);
  const last = to === undefined ? first : parseIP(to);
  if (!first || !last || extra !== undefined || first.family !== last.family || first.value > last.value) return undefined;
  return { family: first.family, first: first.value, last: last.value, text };
}

export function rangesOverlap(a: AddressRange, b: AddressRange): boolean {
  return a.family === b.family && a.first <= b.last && b.first <= a.last;
}

export function rangeContains(range: AddressRange, ip: IP): boolean {
  return range.family === ip.family && ip.value >= range.first && ip.value <= range.last;
}

export function poolContains(pool: Pool, ip: IP): boolean {
  return pool.ranges.some((r) => rangeContains(r, ip));
}

/** Pools never overlap (checked when the config is read), so an address has at most one pool. */
export function poolOf(pools: readonly Pool[], ip: IP): Pool | undefined {
  return pools.find((p) => poolContains(p, ip));
}

export function servesNamespace(pool: Pool, namespace: string): boolean {
  return pool.namespaces.length === 0 || pool.namespaces.includes(namespace);
}

export function hasFamily(pool: Pool, family: IPFamily): boolean {
  return pool.ranges.some((r) => r.family === family);
}

const byPriority = (a: Pool, b: Pool): number => (a.priority ?? Number.POSITIVE_INFINITY) - (b.priority ?? Number.POSITIVE_INFINITY);

/**
 * The pools to try for a new address of `family`, best first. A Service that names a pool gets only that
 * pool. Otherwise, like MetalLB: pools reserved for the Service's namespace first, then pools open to every
 * namespace; within each group lower `priority` first, then file order; `autoAssign: false` pools skipped.
 */
export function candidatePools(pools: readonly Pool[], want: { namespace: string; family: IPFamily; pool?: string }): Pool[] {
  const fits = (p: Pool): boolean => hasFamily(p, want.family) && servesNamespace(p, want.namespace);
  if (want.pool !== undefined) return pools.filter((p) => p.name === want.pool && fits(p));
  const usable = pools.filter((p) => p.autoAssign && fits(p));
  const reserved = usable.filter((p) => p.namespaces.length > 0).sort(byPriority);
  const open = usable.filter((p) => p.namespaces.length === 0).sort(byPriority);
  return [...reserved, ...open];
}

/** The canonical text of an address: the key of the allocation table. */
export function addressKey(ip: IP): string {
  return formatIP(ip);
}

export const familyName = (family: IPFamily): "IPv4" | "IPv6" => (family === 4 ? "IPv4" : "IPv6");
