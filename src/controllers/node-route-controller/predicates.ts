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

/** The same CIDR however the provider spells it (IPv6 zero compression, host bits). */
export function normalCIDR(text: string): string {
  const cidr = parseCIDR(text);
  return cidr ? formatCIDR(cidr) : text;
}

export function podCIDRs(node: Node): string[] {
  const spec = node.spec ?? {};
  const cidrs = spec.podCIDRs && spec.podCIDRs.length > 0 ? spec.podCIDRs : spec.podCIDR ? [spec.podCIDR] : [];
  return cidrs.map(normalCIDR);
}

const addressKey = (a: NodeAddress): string => `${a.type}\u0000${a.address}`;

/** Set equality of addresses (upstream `equalNodeAddrs`). */
export function sameAddresses(a: readonly NodeAddress[] | undefined, b: readonly NodeAddress[] | undefined): boolean {
  const x = new Set((a ?? []).map(addressKey));
  const y = new Set((b ?? []).map(addressKey));
  return x.size === y.size && [...x].every((k) => y.has(k));
}

/** Only pod CIDRs and addresses feed the route plan (KEP-5237's update filter). */
export function shouldReconcileUpdatedNode(oldNode: Node, newNode: Node): boolean {
  return (
    podCIDRs(oldNode).join(",") !== podCIDRs(newNode).join(",") ||
    !sameAddresses(oldNode.status?.addresses, newNode.status?.addresses)
  );
}
