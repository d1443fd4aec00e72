/**
 * The NLB's own security group under `NLBSecurityGroupMode = Managed` (upstream's `ensureNLBSecurityGroup`):
 * named and described as upstream's `GetSecurityGroupNameForNLB`, so a cluster moving from
 * cloud-provider-aws finds the group its NLBs already carry. NLBs made by earlier versions of this
 * provider carry `k8s-elb-<lb name>` instead: that group is still kept in step, and deleted by the classic
 * ELB's path. Either is deleted when annotated groups take its place.
 */
import { createHash } from "node:crypto";
import type { LoadBalancer as V2LoadBalancer } from "@aws-sdk/client-elastic-load-balancing-v2";
import { k8sNamePrefix, serviceName } from "../lb-names.ts";
import type { LbOptions } from "../lb-annotations.ts";
import {
  applyRules,
  deleteOwnGroupsWhenFree,
  ensureOwnGroup,
  ownGroupName,
  ruleChanges,
  rulesOf,
  type OwnGroup,
  type Rule,
  type SecurityGroupDeps,
} from "../lb-security-groups.ts";
import { tagMap, taggedForCluster } from "../tags.ts";
import type { Service } from "../../../src/kube/objects.ts";
import { nlbFrontendRules, type TargetGroupSpec } from "./plan.ts";

export interface ManagedGroupDeps {
  readonly sg: SecurityGroupDeps;
  /** `NLBSecurityGroupMode = Managed`. */
  readonly managedGroup: boolean;
  /** Delay before deleting the group again while AWS still reports it in use. */
  readonly securityGroupRetryMs: number;
}

/** What the managed group follows: the NLB's name, its Service, VPC, source ranges, tags and listener ports. */
export interface ManagedGroupTarget {
  readonly clusterName: string;
  readonly name: string;
  readonly service: Service;
  readonly vpc: string;
  readonly options: Pick<LbOptions, "extraTags" | "sourceRanges">;
  readonly groups: readonly TargetGroupSpec[];
}

/** Upstream's description of every managed NLB group. */
export const MANAGED_GROUP_DESCRIPTION = "[k8s] Managed SecurityGroup for LoadBalancer";

/**
 * Upstream's `GetSecurityGroupNameForNLB`: `k8s-<ns[:8]>-<name[:8]>-<sha256[:10]>`, the hash over the
 * cluster name (`--cluster-name`, not the cluster ID tag), the Service's name, namespace and UID written
 * one after another (name before namespace, as upstream).
 */
export function managedGroupName(clusterName: string, service: Service): string {
  const { namespace = "", name, uid = "" } = service.metadata;
  const hash = createHash("sha256").update(clusterName).update(name).update(namespace).update(uid).digest("hex");
  return `${k8sNamePrefix(service)}${hash.slice(0, 10)}`;
}

function ownGroup(t: ManagedGroupTarget): OwnGroup {
  const tags = { service: serviceName(t.service), vpc: t.vpc, extraTags: t.options.extraTags };
  return { groupName: managedGroupName(t.clusterName, t.service), description: MANAGED_GROUP_DESCRIPTION, ...tags };
}

/** The listener ports and ICMP fragmentation-needed, open from the source ranges. */
function frontendRules(t: ManagedGroupTarget): Rule[] {
  return nlbFrontendRules(t.groups, t.options.sourceRanges);
}

/** The managed group, created when missing, with the listener ports open from the source ranges; resolves its ID. */
export async function ensureManagedGroup(
  deps: ManagedGroupDeps,
  t: ManagedGroupTarget,
  signal?: AbortSignal,
): Promise<string> {
  return ensureOwnGroup(deps.sg, ownGroup(t), frontendRules(t), signal);
}

/**
 * An NLB with security groups, none annotated: the managed group it carries (under either name, tagged
 * for this cluster) keeps its rules in step, read once and never created. Under `NLBSecurityGroupMode =
 * Managed`, one that carries none (its annotated groups dropped) is moved to its managed group, as
 * upstream's `ensureNLBSecurityGroup`; the groups it leaves are not deleted (they were the Service's own
 * choice, not this provider's).
 */
export async function syncManagedGroup(
  deps: ManagedGroupDeps,
  t: ManagedGroupTarget,
  lb: V2LoadBalancer,
  signal?: AbortSignal,
): Promise<void> {
  const names = [managedGroupName(t.clusterName, t.service), ownGroupName(t.name)];
  const filters = [
    { Name: "group-name", Values: names },
    { Name: "vpc-id", Values: [t.vpc] },
  ];
  const found = (await deps.sg.api.ec2.describeSecurityGroups({ Filters: filters }, signal)).SecurityGroups ?? [];
  const attached = new Set(lb.SecurityGroups ?? []);
  const own = found.find(
    (g) => g.GroupId && attached.has(g.GroupId) && taggedForCluster(tagMap(g.Tags), deps.sg.cluster),
  );
  if (own?.GroupId)
    return applyRules(deps.sg, own.GroupId, ruleChanges(rulesOf(own.IpPermissions), frontendRules(t)), signal);
  if (!deps.managedGroup) return;
  const id = await ensureManagedGroup(deps, t, signal);
  await deps.sg.api.elbv2.setSecurityGroups({ LoadBalancerArn: lb.LoadBalancerArn, SecurityGroups: [id] }, signal);
}

/** Deletes the managed group of `service`, if any; a RetryError while AWS still reports it in use. */
export async function deleteManagedGroup(
  deps: ManagedGroupDeps,
  at: { clusterName: string; lbName: string },
  service: Service,
  signal?: AbortSignal,
): Promise<void> {
  const group = { names: [managedGroupName(at.clusterName, service)], lbName: at.lbName };
  await deleteOwnGroupsWhenFree(deps.sg, group, deps.securityGroupRetryMs, signal);
}

/**
 * An NLB whose groups are annotated: the own group it carried before (under either name) is deleted, and
 * the rules admitting it revoked, as upstream's `removeOwnedSecurityGroups` after `SetSecurityGroups`.
 * Looked for on every sync, so a deletion AWS refused for a while is retried.
 */
export async function releaseManagedGroup(
  deps: ManagedGroupDeps,
  t: ManagedGroupTarget,
  inUse: readonly string[],
  signal?: AbortSignal,
): Promise<void> {
  const names = [managedGroupName(t.clusterName, t.service), ownGroupName(t.name)];
  const own = { names, vpc: t.vpc, inUse, lbName: t.name };
  await deleteOwnGroupsWhenFree(deps.sg, own, deps.securityGroupRetryMs, signal);
}
