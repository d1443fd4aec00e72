/**
 * Security groups around a classic ELB (upstream `ensureSecurityGroup`, `setSecurityGroupIngress`,
 * `updateInstanceSecurityGroupsForLoadBalancer`):
 * - the ELB's own group `k8s-elb-<lb name>`, tagged `owned`, admitting the service ports (and ICMP
 *   "fragmentation needed", for path-MTU discovery) from the source ranges — unless the
 *   `-security-groups` annotation or `ElbSecurityGroup` names the groups to use;
 * - on each backend instance's group (the one tagged for the cluster, or its only group) a rule admitting
 *   all traffic from the ELB's group, unless `DisableSecurityGroupIngress`.
 */
import type { IpPermission } from "@aws-sdk/client-ec2";
import { RetryError } from "../../src/cloud/errors.ts";
import type { AwsApi } from "./api.ts";
import { errorCode } from "./call.ts";
import { tagMap, taggedForCluster, ownedTags, type ClusterTags } from "./tags.ts";

export interface SecurityGroupDeps {
  readonly api: AwsApi;
  readonly cluster: ClusterTags;
  readonly warn: (message: string) => void;
}

/** One protocol/port range from one source, so rule sets compare by key. */
export interface Rule {
  readonly protocol: string;
  readonly from?: number;
  readonly to?: number;
  readonly source: { readonly cidr: string } | { readonly group: string };
  /** Marks rules this provider owns where several owners share a group (NLB rules on node groups). */
  readonly description?: string;
}

export function ruleKey(r: Rule): string {
  const source = "cidr" in r.source ? r.source.cidr : `sg:${r.source.group}`;
  return `${r.protocol}|${r.from ?? ""}|${r.to ?? ""}|${source}${r.description ? `|${r.description}` : ""}`;
}

export function rulesOf(permissions: readonly IpPermission[] | undefined): Rule[] {
  return (permissions ?? []).flatMap((p) => {
    const base = { protocol: p.IpProtocol ?? "-1", from: p.FromPort, to: p.ToPort };
    const ranges = [
      ...(p.IpRanges ?? []).map((r) => [r.CidrIp, r.Description]),
      ...(p.Ipv6Ranges ?? []).map((r) => [r.CidrIpv6, r.Description]),
    ];
    return [
      ...ranges.flatMap(([cidr, description]): Rule[] =>
        cidr ? [{ ...base, source: { cidr }, ...(description ? { description } : {}) }] : [],
      ),
      ...(p.UserIdGroupPairs ?? []).flatMap((g): Rule[] =>
        g.GroupId ? [{ ...base, source: { group: g.GroupId } }] : [],
      ),
    ];
  });
}

export function permissionOf(r: Rule): IpPermission {
  const ports = r.protocol === "-1" ? {} : { FromPort: r.from, ToPort: r.to };
  if ("group" in r.source) return { IpProtocol: r.protocol, ...ports, UserIdGroupPairs: [{ GroupId: r.source.group }] };
  const cidr = r.source.cidr;
  const described = r.description ? { Description: r.description } : {};
  return {
    IpProtocol: r.protocol,
    ...ports,
    ...(cidr.includes(":")
      ? { Ipv6Ranges: [{ CidrIpv6: cidr, ...described }] }
      : { IpRanges: [{ CidrIp: cidr, ...described }] }),
  };
}

/** The ELB group's ingress: each port over TCP, plus ICMP type 3 code 4 for IPv4 sources. */
export function desiredLbRules(ports: readonly number[], sourceRanges: readonly string[]): Rule[] {
  const rules: Rule[] = [];
  for (const cidr of sourceRanges) {
    for (const port of ports) rules.push({ protocol: "tcp", from: port, to: port, source: { cidr } });
    if (!cidr.includes(":")) rules.push({ protocol: "icmp", from: 3, to: 4, source: { cidr } });
  }
  return rules;
}

export function ruleChanges(actual: readonly Rule[], desired: readonly Rule[]): { add: Rule[]; remove: Rule[] } {
  const have = new Set(actual.map(ruleKey));
  const want = new Map(desired.map((r) => [ruleKey(r), r]));
  return {
    add: [...want].filter(([key]) => !have.has(key)).map(([, r]) => r),
    remove: actual.filter((r) => !want.has(ruleKey(r))),
  };
}

export const ownGroupName = (lbName: string): string => `k8s-elb-${lbName}`;

/** A load balancer's own group: its name and description (used at creation), and where and how it is tagged. */
export interface OwnGroup {
  readonly groupName: string;
  readonly description: string;
  readonly service: string;
  readonly vpc: string;
  readonly extraTags: Readonly<Record<string, string>>;
}

/** The classic ELB's own group, named and described as upstream's `buildELBSecurityGroupList`. */
export function elbOwnGroup(lb: Omit<OwnGroup, "groupName" | "description"> & { name: string }): OwnGroup {
  const { name, ...rest } = lb;
  return {
    ...rest,
    groupName: ownGroupName(name),
    description: `Security group for Kubernetes ELB ${name} (${lb.service})`,
  };
}

interface FoundGroup {
  readonly id: string;
  readonly rules: Rule[];
}

/** The groups named `names` (in `vpc` when given) that are tagged for the cluster. */
async function findOwnGroups(
  deps: SecurityGroupDeps,
  names: readonly string[],
  vpc: string | undefined,
  signal?: AbortSignal,
): Promise<FoundGroup[]> {
  const filters = [{ Name: "group-name", Values: [...names] }, ...(vpc ? [{ Name: "vpc-id", Values: [vpc] }] : [])];
  const groups = (await deps.api.ec2.describeSecurityGroups({ Filters: filters }, signal)).SecurityGroups ?? [];
  return groups.flatMap((g) =>
    g.GroupId && taggedForCluster(tagMap(g.Tags), deps.cluster)
      ? [{ id: g.GroupId, rules: rulesOf(g.IpPermissions) }]
      : [],
  );
}

async function findOwnGroup(
  deps: SecurityGroupDeps,
  groupName: string,
  vpc: string | undefined,
  signal?: AbortSignal,
): Promise<FoundGroup | undefined> {
  return (await findOwnGroups(deps, [groupName], vpc, signal))[0];
}

export async function applyRules(
  deps: SecurityGroupDeps,
  groupId: string,
  changes: { add: Rule[]; remove: Rule[] },
  signal?: AbortSignal,
): Promise<void> {
  if (changes.remove.length > 0)
    await deps.api.ec2.revokeSecurityGroupIngress(
      { GroupId: groupId, IpPermissions: changes.remove.map(permissionOf) },
      signal,
    );
  if (changes.add.length > 0)
    await deps.api.ec2.authorizeSecurityGroupIngress(
      { GroupId: groupId, IpPermissions: changes.add.map(permissionOf) },
      signal,
    );
}

/**
 * The load balancer's own group, created when missing (tagged with `extraTags` too, as upstream), with
 * `rules` as ingress.
 */
export async function ensureOwnGroup(
  deps: SecurityGroupDeps,
  own: OwnGroup,
  rules: readonly Rule[],
  signal?: AbortSignal,
): Promise<string> {
  let group = await findOwnGroup(deps, own.groupName, own.vpc, signal);
  if (!group) {
    const created = await deps.api.ec2
      .createSecurityGroup(
        {
          GroupName: own.groupName,
          Description: own.description,
          VpcId: own.vpc,
          TagSpecifications: [
            { ResourceType: "security-group", Tags: ownedTags(deps.cluster, own.service, own.extraTags) },
          ],
        },
        signal,
      )
      .catch(async (error: unknown) => {
        if (errorCode(error) !== "InvalidGroup.Duplicate") throw error;
        return { GroupId: (await findOwnGroup(deps, own.groupName, own.vpc, signal))?.id };
      });
    if (!created.GroupId) throw new Error(`security group ${own.groupName} was neither created nor found`);
    group = { id: created.GroupId, rules: [] };
  }
  await applyRules(deps, group.id, ruleChanges(group.rules, rules), signal);
  return group.id;
}

/** Which own groups to delete: those named `names` (in `vpc` when given), except the ones in `inUse`. */
export interface OwnGroups {
  readonly names: readonly string[];
  readonly vpc?: string;
  readonly inUse?: readonly string[];
}

/**
 * Deletes the own groups `of` names, each after the rules of other groups that admit it are revoked;
 * resolves their IDs. Throws DependencyViolation while AWS still uses one.
 */
export async function deleteOwnGroups(deps: SecurityGroupDeps, of: OwnGroups, signal?: AbortSignal): Promise<string[]> {
  const inUse = new Set(of.inUse ?? []);
  const groups = (await findOwnGroups(deps, of.names, of.vpc, signal)).filter((g) => !inUse.has(g.id));
  for (const group of groups) {
    await removeNodeRules(deps, group.id, {}, signal);
    try {
      await deps.api.ec2.deleteSecurityGroup({ GroupId: group.id }, signal);
    } catch (error) {
      if (errorCode(error) !== "InvalidGroup.NotFound") throw error;
    }
  }
  return groups.map((g) => g.id);
}

/**
 * `deleteOwnGroups`, with AWS's DependencyViolation (a deleted or just changed load balancer's network
 * interfaces linger for a while) turned into a RetryError after `retryMs`.
 */
export async function deleteOwnGroupsWhenFree(
  deps: SecurityGroupDeps,
  of: OwnGroups & { readonly lbName: string },
  retryMs: number,
  signal?: AbortSignal,
): Promise<string[]> {
  try {
    return await deleteOwnGroups(deps, of, signal);
  } catch (error) {
    if (errorCode(error) !== "DependencyViolation") throw error;
    throw new RetryError(
      `security group of load balancer ${of.lbName} is still in use (the load balancer's network interfaces linger after a change or deletion); retrying`,
      retryMs,
      { cause: error },
    );
  }
}

/**
 * Which referencing groups lose their rules from `lbGroup`: all but `keep`, every rule from it (an own
 * group's); with `shared`, the cluster's tagged groups only, the all-traffic rule only (a shared group's).
 */
export interface NodeRuleScope {
  readonly keep?: ReadonlySet<string>;
  readonly shared?: boolean;
}

/** Revokes the rules admitting `lbGroup` from the groups `scope` names. */
export async function removeNodeRules(
  deps: SecurityGroupDeps,
  lbGroup: string,
  scope: NodeRuleScope,
  signal?: AbortSignal,
): Promise<void> {
  const referencing =
    (
      await deps.api.ec2.describeSecurityGroups(
        { Filters: [{ Name: "ip-permission.group-id", Values: [lbGroup] }] },
        signal,
      )
    ).SecurityGroups ?? [];
  for (const g of referencing) {
    if (!g.GroupId || g.GroupId === lbGroup || scope.keep?.has(g.GroupId)) continue;
    if (scope.shared && !taggedForCluster(tagMap(g.Tags), deps.cluster)) continue;
    const stale = rulesOf(g.IpPermissions).filter(
      (r) => "group" in r.source && r.source.group === lbGroup && (!scope.shared || r.protocol === "-1"),
    );
    await applyRules(deps, g.GroupId, { add: [], remove: stale }, signal);
  }
}
