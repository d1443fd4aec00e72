/**
 * The backend side of an ELB's security: each backend instance's security group admits all traffic from
 * the ELB's group. The instance's group is the one tagged for the cluster, else its only group; an
 * instance with several untagged groups is skipped with a warning (upstream's rule).
 */
import type { Ec2Instance } from "./ec2-instance.ts";
import {
  applyRules,
  removeNodeRules,
  ruleChanges,
  rulesOf,
  type Rule,
  type SecurityGroupDeps,
} from "./lb-security-groups.ts";
import { tagMap, taggedForCluster } from "./tags.ts";

/** The only cluster-tagged group, else the only group, else none. */
function groupOf(instance: Ec2Instance, tagged: readonly string[]): string | undefined {
  if (tagged.length === 1) return tagged[0];
  return tagged.length === 0 && instance.securityGroupIds.length === 1 ? instance.securityGroupIds[0] : undefined;
}

/** The group per instance that gets the rule; instances without one are left out. */
export async function backendGroups(
  deps: SecurityGroupDeps,
  instances: readonly Ec2Instance[],
  signal?: AbortSignal,
): Promise<Map<string, Rule[]>> {
  const ids = [...new Set(instances.flatMap((i) => i.securityGroupIds))];
  if (ids.length === 0) return new Map();
  const groups = (await deps.api.ec2.describeSecurityGroups({ GroupIds: ids }, signal)).SecurityGroups ?? [];
  const tagged = new Set(groups.filter((g) => taggedForCluster(tagMap(g.Tags), deps.cluster)).map((g) => g.GroupId));
  const rules = new Map(groups.map((g) => [g.GroupId ?? "", rulesOf(g.IpPermissions)]));
  const chosen = new Map<string, Rule[]>();
  for (const instance of instances) {
    const mine = instance.securityGroupIds.filter((g) => tagged.has(g));
    const pick = groupOf(instance, mine);
    if (pick) chosen.set(pick, rules.get(pick) ?? []);
    else
      deps.warn(
        `instance ${instance.id} has ${mine.length || instance.securityGroupIds.length} candidate security groups and none is the only one tagged for the cluster; not opening it to the load balancer`,
      );
  }
  return chosen;
}

/**
 * Opens every backend's group to `lbGroup`. With `revokeStale` (the ELB's own group), groups no backend
 * uses any more lose the rule; a shared group is never revoked from, since other ELBs rely on it.
 */
export async function syncNodeRules(
  deps: SecurityGroupDeps,
  lb: { group: string; revokeStale: boolean },
  instances: readonly Ec2Instance[],
  signal?: AbortSignal,
): Promise<void> {
  const lbGroup = lb.group;
  const groups = await backendGroups(deps, instances, signal);
  const rule: Rule = { protocol: "-1", source: { group: lbGroup } };
  for (const [groupId, rules] of groups) {
    if (!rules.some((r) => r.protocol === "-1" && "group" in r.source && r.source.group === lbGroup))
      await applyRules(deps, groupId, { add: [rule], remove: [] }, signal);
  }
  if (lb.revokeStale) await removeNodeRules(deps, lbGroup, new Set(groups.keys()), signal);
}

export interface MarkedRules {
  readonly name: string;
  readonly vpc: string;
  readonly instances: readonly Ec2Instance[];
  readonly rules: readonly Rule[];
  /** Rules for named groups besides the backends' (the NLB's own security group). */
  readonly extra?: ReadonlyMap<string, readonly Rule[]>;
}

/**
 * Makes the rules marked for NLB `lbName` on the VPC's groups equal `desired` on the backends' groups and
 * absent elsewhere (`instances` empty: removes them all).
 */
export async function syncMarkedRules(deps: SecurityGroupDeps, lb: MarkedRules, signal?: AbortSignal): Promise<void> {
  const desired = lb.rules;
  const chosen = new Set((await backendGroups(deps, lb.instances, signal)).keys());
  const groups =
    (await deps.api.ec2.describeSecurityGroups({ Filters: [{ Name: "vpc-id", Values: [lb.vpc] }] }, signal))
      .SecurityGroups ?? [];
  const mine = (r: Rule): boolean =>
    r.description?.startsWith("kubernetes.io/rule/nlb/") === true && r.description.endsWith(`=${lb.name}`);
  for (const g of groups) {
    if (!g.GroupId) continue;
    const current = rulesOf(g.IpPermissions).filter(mine);
    const wanted = [...(chosen.has(g.GroupId) ? desired : []), ...(lb.extra?.get(g.GroupId) ?? [])];
    await applyRules(deps, g.GroupId, ruleChanges(current, wanted), signal);
  }
}
