/**
 * The backend side of an ELB's security: each backend instance's security group admits all traffic from
 * the ELB's group. The instance's group is the one tagged for the cluster, else its only group; an
 * instance with several tagged groups, or several untagged ones, fails the load balancer's sync with an
 * error naming the instance and the groups (upstream's `findSecurityGroupForInstance`).
 */
import type { Ec2Instance } from "./ec2-instance.ts";
import {
  applyRules,
  removeNodeRules,
  ruleChanges,
  ruleKey,
  rulesOf,
  type Rule,
  type SecurityGroupDeps,
} from "./lb-security-groups.ts";
import { MTU_RULE_DESCRIPTION } from "./nlb/plan.ts";
import { tagMap, taggedForCluster } from "./tags.ts";

/** The only cluster-tagged group, else the only group, else none (no group: upstream's warning). */
function groupOf(
  instance: Ec2Instance,
  tagged: readonly string[],
  names: ReadonlyMap<string, string>,
): string | undefined {
  const listed = (ids: readonly string[]): string => ids.map((g) => `${g}(${names.get(g) ?? ""})`).join(" ");
  if (tagged.length > 1)
    throw new Error(
      `Multiple tagged security groups found for instance ${instance.id}; ensure only the k8s security group is tagged; the tagged groups were ${listed(tagged)}`,
    );
  if (tagged.length === 1) return tagged[0];
  if (instance.securityGroupIds.length > 1)
    throw new Error(
      `Multiple untagged security groups found for instance ${instance.id}; ensure the k8s security group is tagged; the groups were ${listed(instance.securityGroupIds)}`,
    );
  return instance.securityGroupIds[0];
}

/** The group per instance that gets the rule; instances without any group are left out. */
export async function backendGroups(
  deps: SecurityGroupDeps,
  instances: readonly Ec2Instance[],
  signal?: AbortSignal,
): Promise<Map<string, Rule[]>> {
  const ids = [...new Set(instances.flatMap((i) => i.securityGroupIds))];
  if (ids.length === 0) return new Map();
  const groups = (await deps.api.ec2.describeSecurityGroups({ GroupIds: ids }, signal)).SecurityGroups ?? [];
  const tagged = new Set(groups.filter((g) => taggedForCluster(tagMap(g.Tags), deps.cluster)).map((g) => g.GroupId));
  const names = new Map(groups.map((g) => [g.GroupId ?? "", g.GroupName ?? ""]));
  const rules = new Map(groups.map((g) => [g.GroupId ?? "", rulesOf(g.IpPermissions)]));
  const chosen = new Map<string, Rule[]>();
  for (const instance of instances) {
    const pick = groupOf(
      instance,
      instance.securityGroupIds.filter((g) => tagged.has(g)),
      names,
    );
    if (pick) chosen.set(pick, rules.get(pick) ?? []);
    else deps.warn(`instance ${instance.id} has no security group; not opening it to the load balancer`);
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
  if (lb.revokeStale) await removeNodeRules(deps, lbGroup, { keep: new Set(groups.keys()) }, signal);
}

export interface MarkedRules {
  readonly name: string;
  readonly vpc: string;
  readonly instances: readonly Ec2Instance[];
  readonly rules: readonly Rule[];
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
    const all = rulesOf(g.IpPermissions);
    const wanted = chosen.has(g.GroupId) ? desired : [];
    const own = ruleChanges(
      all.filter(mine),
      wanted.filter((r) => !isSharedMtu(r)),
    );
    const after = [...all.filter((r) => !own.remove.includes(r)), ...own.add];
    const mtu = sharedMtuChanges(after, wanted.filter(isSharedMtu));
    await applyRules(
      deps,
      g.GroupId,
      { add: [...own.add, ...mtu.add], remove: [...own.remove, ...mtu.remove] },
      signal,
    );
  }
}

const isSharedMtu = (r: Rule): boolean => r.description === MTU_RULE_DESCRIPTION;
const CLIENT_RULE_PREFIX = "kubernetes.io/rule/nlb/client=";
const sourceOf = (r: Rule): string => ("cidr" in r.source ? r.source.cidr : "");

/**
 * The shared MTU rules of a group whose NLB rules are now `after`: one added for each source range
 * wanted that the group does not admit that way yet (under any description), and one removed once no
 * NLB's client rule comes from its range any more; so no NLB takes it from another.
 */
function sharedMtuChanges(after: readonly Rule[], wanted: readonly Rule[]): { add: Rule[]; remove: Rule[] } {
  const same = (a: Rule, b: Rule): boolean =>
    ruleKey({ ...a, description: undefined }) === ruleKey({ ...b, description: undefined });
  const clientSources = new Set(after.filter((r) => r.description?.startsWith(CLIENT_RULE_PREFIX)).map(sourceOf));
  return {
    add: wanted.filter((w) => !after.some((r) => same(r, w))),
    remove: after.filter((r) => isSharedMtu(r) && !clientSources.has(sourceOf(r))),
  };
}
