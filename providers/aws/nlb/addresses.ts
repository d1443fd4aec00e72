/**
 * Fixed NLB addresses: `eip-allocations` (upstream; Elastic IP allocation IDs for an internet-facing NLB)
 * and `private-ipv4-addresses` (the AWS Load Balancer Controller's; addresses for an internal NLB), one per
 * subnet, sent as subnet mappings when the NLB is created. Elastic IPs go to the subnets in the order
 * upstream's `createSubnetMappings` pairs them: by zone name (the order `findELBSubnets` returns them in),
 * then subnet ID; a private address goes to the subnet whose CIDR holds it.
 * A count that does not match the subnets, or an address outside them, is refused before anything is
 * created, so there is never a half-built NLB. AWS cannot change the addresses of a live NLB; asking for
 * other addresses than it reports is refused with the advice to recreate the Service; dropping the
 * annotation keeps the addresses the NLB has.
 */
import type { LoadBalancer as V2LoadBalancer, SubnetMapping } from "@aws-sdk/client-elastic-load-balancing-v2";
import { cidrContains, parseCIDR, parseIP, type IP } from "../../../src/net/ip.ts";
import { badAnnotation as bad, readList, type Read } from "../lb-annotation-values.ts";

export interface FixedAddresses {
  readonly eipAllocations: readonly string[];
  readonly privateIpv4Addresses: readonly string[];
}

export const NO_FIXED_ADDRESSES: FixedAddresses = { eipAllocations: [], privateIpv4Addresses: [] };

const EIP = "eip-allocations";
const PRIVATE = "private-ipv4-addresses";

const ipv4 = (text: string): IP | undefined => {
  const ip = parseIP(text);
  return ip?.family === 4 ? ip : undefined;
};

/** The annotations, checked against the scheme; throws naming the annotation. */
export function readFixedAddresses(read: Read, internal: boolean): FixedAddresses {
  const eipAllocations = readList(read, EIP);
  const privateIpv4Addresses = readList(read, PRIVATE);
  for (const id of eipAllocations)
    if (!/^eipalloc-[0-9a-f]+$/.test(id)) throw bad(EIP, id, "not an Elastic IP allocation ID (eipalloc-…)");
  for (const ip of privateIpv4Addresses) if (!ipv4(ip)) throw bad(PRIVATE, ip, "not an IPv4 address");
  checkScheme(read, { eipAllocations, privateIpv4Addresses }, internal);
  return { eipAllocations, privateIpv4Addresses };
}

function checkScheme(read: Read, fixed: FixedAddresses, internal: boolean): void {
  if (fixed.eipAllocations.length > 0 && internal)
    throw bad(EIP, read(EIP) ?? "", "Elastic IPs need an internet-facing NLB; this one is internal");
  if (fixed.privateIpv4Addresses.length > 0 && !internal)
    throw bad(PRIVATE, read(PRIVATE) ?? "", "private addresses need an internal NLB (aws-load-balancer-internal)");
}

export interface SubnetInfo {
  readonly id: string;
  readonly cidr: string;
  /** The availability zone's name ("" when unknown). */
  readonly zone: string;
}

/** Upstream's order of the NLB's subnets: by zone name, then (two in one zone, annotated) by ID. */
export function inZoneOrder(subnets: readonly SubnetInfo[]): SubnetInfo[] {
  const key = (s: SubnetInfo): string => `${s.zone}\u0000${s.id}`;
  return [...subnets].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

function inCidr(ip: string, cidr: string): boolean {
  const parsed = parseCIDR(cidr);
  const address = ipv4(ip);
  return parsed !== undefined && address !== undefined && cidrContains(parsed, address);
}

function privateMappings(subnets: readonly SubnetInfo[], ips: readonly string[]): SubnetMapping[] {
  return subnets.map((s) => {
    const held = ips.filter((ip) => inCidr(ip, s.cidr));
    if (held.length !== 1) {
      throw bad(
        PRIVATE,
        ips.join(","),
        `subnet ${s.id} (${s.cidr}) holds ${held.length} of the addresses; give exactly one address in each of ${subnets.map((x) => `${x.id} (${x.cidr})`).join(", ")}`,
      );
    }
    return { SubnetId: s.id, PrivateIPv4Address: held[0]! };
  });
}

/** Subnet mappings for a new NLB, or undefined when no fixed addresses are asked for; throws on a mismatch. */
export function subnetMappings(subnets: readonly SubnetInfo[], fixed: FixedAddresses): SubnetMapping[] | undefined {
  const { eipAllocations: eips, privateIpv4Addresses: ips } = fixed;
  const ids = subnets.map((s) => s.id).join(", ");
  if (eips.length > 0) {
    if (eips.length !== subnets.length)
      throw bad(
        EIP,
        eips.join(","),
        `${eips.length} allocations for ${subnets.length} subnets (${ids}); give one per subnet`,
      );
    return subnets.map((s, i) => ({ SubnetId: s.id, AllocationId: eips[i]! }));
  }
  if (ips.length > 0) {
    if (ips.length !== subnets.length)
      throw bad(
        PRIVATE,
        ips.join(","),
        `${ips.length} addresses for ${subnets.length} subnets (${ids}); give one per subnet`,
      );
    return privateMappings(subnets, ips);
  }
  return undefined;
}

/**
 * The addresses the live NLB reports, as sorted `subnet=value` lines (`none` for an address AWS chose);
 * empty when it reports none at all (moto never does).
 */
function reported(lb: V2LoadBalancer, key: "AllocationId" | "PrivateIPv4Address"): string[] {
  return (lb.AvailabilityZones ?? [])
    .flatMap((z) => (z.LoadBalancerAddresses ?? []).map((a) => `${z.SubnetId}=${a[key] ?? "none"}`))
    .sort();
}

/**
 * Why the live NLB cannot get the `wanted` addresses, or undefined when it has them. Only annotated kinds
 * are compared (an internal NLB reports the private addresses AWS chose), and only when the NLB reports
 * some (moto reports none).
 */
export function fixedAddressConflict(
  lb: V2LoadBalancer,
  wanted: readonly SubnetMapping[] | undefined,
): string | undefined {
  for (const [key, annotation] of [
    ["AllocationId", EIP],
    ["PrivateIPv4Address", PRIVATE],
  ] as const) {
    const have = reported(lb, key);
    const want = (wanted ?? []).flatMap((m) => (m[key] ? [`${m.SubnetId}=${m[key]}`] : [])).sort();
    if (want.length > 0 && have.length > 0 && have.join(",") !== want.join(",")) {
      return `annotation service.beta.kubernetes.io/aws-load-balancer-${annotation}: NLB ${lb.LoadBalancerName} has ${have.join(", ")}; AWS cannot change the addresses of a live NLB; recreate the Service`;
    }
  }
  return undefined;
}
