/**
 * The rule a classic ELB puts on its backends' groups admits all traffic from the ELB's first group. When
 * that group is the ELB's own, the rule goes with the group. When it is not (annotated, or
 * `ElbSecurityGroup`), several ELBs may rely on the same rule: it is revoked, from the groups tagged for
 * the cluster only, once no other classic ELB carries the group. Upstream revokes it from the tagged groups
 * whenever one of its ELBs is deleted or moves off the group, whoever else relies on it.
 */
import type { AwsApi } from "../api.ts";
import { removeNodeRules, type SecurityGroupDeps } from "../lb-security-groups.ts";

/** The groups the classic ELBs other than `lbName` carry, read in one pass over every ELB. */
async function carriedElsewhere(api: AwsApi, lbName: string, signal?: AbortSignal): Promise<Set<string>> {
  const carried = new Set<string>();
  let marker: string | undefined;
  do {
    const page = await api.elb.describeLoadBalancers({ PageSize: 400, Marker: marker }, signal);
    const others = (page.LoadBalancerDescriptions ?? []).filter((lb) => lb.LoadBalancerName !== lbName);
    for (const g of others.flatMap((lb) => lb.SecurityGroups ?? [])) carried.add(g);
    marker = page.NextMarker;
  } while (marker);
  return carried;
}

/** Revokes the "all from the group" rule from the cluster's groups, for each group no other classic ELB carries. */
export async function releaseSharedGroupRules(
  deps: SecurityGroupDeps,
  at: { groups: readonly string[]; lbName: string },
  signal?: AbortSignal,
): Promise<void> {
  if (at.groups.length === 0) return;
  const carried = await carriedElsewhere(deps.api, at.lbName, signal);
  for (const group of at.groups) if (!carried.has(group)) await removeNodeRules(deps, group, { shared: true }, signal);
}
