/**
 * The rule a classic ELB puts on its backends' groups admits all traffic from the ELB's first group. When
 * that group is the ELB's own, the rule goes with the group. When it is not (annotated, or
 * `ElbSecurityGroup`), several ELBs may rely on the same rule: it is revoked, from the groups tagged for
 * the cluster only, once no other classic ELB carries the group. Upstream revokes it from the tagged groups
 * whenever one of its ELBs is deleted or moves off the group, whoever else relies on it.
 */
import type { AwsApi } from "../api.ts";
import { applyRules, rulesOf, type SecurityGroupDeps } from "../lb-security-groups.ts";
import { tagMap, taggedForCluster } from "../tags.ts";

/** Whether a classic ELB other than `lbName` carries `group`. */
async function carriedElsewhere(api: AwsApi, group: string, lbName: string, signal?: AbortSignal): Promise<boolean> {
  let marker: string | undefined;
  do {
    const page = await api.elb.describeLoadBalancers({ PageSize: 400, Marker: marker }, signal);
    for (const lb of page.LoadBalancerDescriptions ?? [])
      if (lb.LoadBalancerName !== lbName && lb.SecurityGroups?.includes(group)) return true;
    marker = page.NextMarker;
  } while (marker);
  return false;
}

/** Revokes the "all from `group`" rule from the cluster's groups, unless another classic ELB carries `group`. */
export async function releaseSharedGroupRule(
  deps: SecurityGroupDeps,
  at: { group: string; lbName: string },
  signal?: AbortSignal,
): Promise<void> {
  const { group } = at;
  if (await carriedElsewhere(deps.api, group, at.lbName, signal)) return;
  const filters = [{ Name: "ip-permission.group-id", Values: [group] }];
  const referencing = (await deps.api.ec2.describeSecurityGroups({ Filters: filters }, signal)).SecurityGroups ?? [];
  for (const g of referencing) {
    if (!g.GroupId || g.GroupId === group || !taggedForCluster(tagMap(g.Tags), deps.cluster)) continue;
    const rule = rulesOf(g.IpPermissions).filter(
      (r) => r.protocol === "-1" && "group" in r.source && r.source.group === group,
    );
    await applyRules(deps, g.GroupId, { add: [], remove: rule }, signal);
  }
}
