/**
 * The route controller's pure checks: `--cluster-cidr` rules, which cloud routes it may touch, and which
 * Node changes can change routes.
 */
import type { Route } from "../../cloud/provider.ts";
import type { Node, NodeAddress } from "../../kube/objects.ts";
import { cidrContains, formatCIDR, lastAddress, parseCIDR, type CIDR } from "../../net/ip.ts";

/**
 * Upstream's start condition when routes are on: one CIDR, or one IPv4 plus one IPv6 (dual-stack).
 * Returns the problem as one line naming the flag and its value, or undefined when the CIDRs are fine.
 */
export function validateClusterCidrs(cidrs: readonly CIDR[]): string | undefined {
  const value = JSON.stringify(cidrs.map(formatCIDR).join(","));
  const invalid = (reason: string): string => `invalid value ${value} for flag --cluster-cidr: ${reason}`;
  if (cidrs.length === 0)
    return invalid(
      "the node-route-controller needs the cluster's pod CIDR range(s); set it, or turn routes off with --configure-cloud-routes=false",
    );
  if (cidrs.length > 2) return invalid(`at most two CIDRs (one IPv4 and one IPv6) are allowed, got ${cidrs.length}`);
  if (cidrs.length === 2 && cidrs[0]?.family === cidrs[1]?.family)
    return invalid("two CIDRs must be one IPv4 and one IPv6 (dual-stack)");
  return undefined;
}

/**
 * A route is ours to delete when its destination's first or last address lies in a cluster CIDR.
 * Routes we cannot parse, and routes elsewhere, are never touched.
 */
export function responsibleForRoute(route: Route, clusterCidrs: readonly CIDR[]): boolean {
  const cidr = parseCIDR(route.destinationCIDR);
  if (!cidr) return false;
  const first = { family: cidr.family, value: cidr.base };
  const last = { family: cidr.family, value: lastAddress(cidr) };
  return clusterCidrs.some((c) => cidrContains(c, first) || cidrContains(c, last));
}

/**
 * The same CIDR however the provider spells it (IPv6 zero compression, host bits). Every reconcile
 * normalises every Node's and route's CIDR: an IPv4 CIDR already in normal form is returned as it is,
 * without the general parse.
 */
export function normalCIDR(text: string): string {
  if (isNormalIPv4CIDR(text)) return text;
  const cidr = parseCIDR(text);
  return cidr ? formatCIDR(cidr) : text;
}

const IPV4_CIDR = /^(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})\/(0|[1-9]\d?)$/;

/** Dotted decimal without leading zeros, every octet ≤ 255, prefix ≤ 32, no host bits set. */
export function isNormalIPv4CIDR(text: string): boolean {
  const m = IPV4_CIDR.exec(text);
  if (!m) return false;
  const [a, b, c, d, prefix] = m.slice(1).map(Number) as [number, number, number, number, number];
  if (a > 255 || b > 255 || c > 255 || d > 255 || prefix > 32) return false;
  const value = ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;
  const hostBits = 32 - prefix;
  return hostBits === 0 || value % 2 ** hostBits === 0;
}

function rawPodCIDRs(node: Node): readonly string[] {
  const spec = node.spec ?? {};
  return spec.podCIDRs && spec.podCIDRs.length > 0 ? spec.podCIDRs : spec.podCIDR ? [spec.podCIDR] : [];
}

export function podCIDRs(node: Node): string[] {
  return rawPodCIDRs(node).map(normalCIDR);
}

const addressKey = (a: NodeAddress): string => `${a.type}\u0000${a.address}`;

/** Set equality of addresses (upstream `equalNodeAddrs`). */
export function sameAddresses(a: readonly NodeAddress[] | undefined, b: readonly NodeAddress[] | undefined): boolean {
  if (sameInOrder(a ?? [], b ?? [], (x, y) => x.type === y.type && x.address === y.address)) return true;
  const x = new Set((a ?? []).map(addressKey));
  const y = new Set((b ?? []).map(addressKey));
  return x.size === y.size && [...x].every((k) => y.has(k));
}

function sameInOrder<T>(a: readonly T[], b: readonly T[], same: (x: T, y: T) => boolean): boolean {
  return a === b || (a.length === b.length && a.every((x, i) => same(x, b[i] as T)));
}

/**
 * Only pod CIDRs and addresses feed the route plan (KEP-5237's update filter). Called on every Node
 * update, heartbeats included: unchanged spellings are equal without being parsed.
 */
export function shouldReconcileUpdatedNode(oldNode: Node, newNode: Node): boolean {
  const [oldCIDRs, newCIDRs] = [rawPodCIDRs(oldNode), rawPodCIDRs(newNode)];
  const sameCIDRs =
    sameInOrder(oldCIDRs, newCIDRs, (x, y) => x === y) || podCIDRs(oldNode).join(",") === podCIDRs(newNode).join(",");
  return !sameCIDRs || !sameAddresses(oldNode.status?.addresses, newNode.status?.addresses);
}
