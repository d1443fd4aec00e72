/**
 * Network load balancers (`aws-load-balancer-type: nlb`), upstream's NLB flow: the NLB in the chosen
 * subnets (with the annotated security groups, or its own under `NLBSecurityGroupMode = Managed`), an
 * instance target group per port, a listener per port forwarding to it, running backends registered on
 * their NodePorts, cross-zone and access logs as attributes, and the client / health / MTU rules on the
 * backends' security groups. Target groups that no listener uses any more are deleted after the
 * listeners move.
 */
import type {
  LoadBalancer as V2LoadBalancer,
  SubnetMapping,
  TargetGroup,
} from "@aws-sdk/client-elastic-load-balancing-v2";
import type { AwsApi } from "../api.ts";
import { errorCode } from "../call.ts";
import type { Ec2Instance } from "../ec2-instance.ts";
import { PREFIX, type LbOptions } from "../lb-annotations.ts";
import { syncMarkedRules } from "../lb-node-rules.ts";
import { loadBalancerName, serviceName } from "../lb-names.ts";
import type { SecurityGroupDeps } from "../lb-security-groups.ts";
import { fixedAddressConflict, inZoneOrder, subnetMappings, type SubnetInfo } from "./addresses.ts";
import { syncListeners, type WantedListener } from "./listeners.ts";
import { syncLbAttributes } from "./lb-attributes.ts";
import { deleteManagedGroup, ensureManagedGroup, releaseManagedGroup, syncManagedGroup } from "./managed-group.ts";
import { nlbNodeRules, type TargetGroupSpec } from "./plan.ts";
import { deleteStrayGroups } from "./stray-groups.ts";
import { ensureTargetGroup, syncAttributes, syncTargets } from "./target-groups.ts";
import type { Service } from "../../../src/kube/objects.ts";
import { ownedTags, type ClusterTags } from "../tags.ts";

export interface NlbDeps {
  readonly api: AwsApi;
  readonly cluster: ClusterTags;
  readonly sg: SecurityGroupDeps;
  readonly manageNodeRules: boolean;
  /** `NLBSecurityGroupMode = Managed`: new NLBs without annotated groups get their own (`managed-group.ts`). */
  readonly managedGroup: boolean;
  /** Delay before deleting the managed group again while AWS still reports it in use. */
  readonly securityGroupRetryMs: number;
}

export interface NlbTarget {
  /** The manager's `--cluster-name`: upstream hashes it into the managed group's name. */
  readonly clusterName: string;
  readonly name: string;
  readonly service: Service;
  readonly options: LbOptions;
  readonly vpc: string;
  readonly subnets: readonly string[];
  readonly groups: readonly TargetGroupSpec[];
}

export async function describeNlb(
  api: AwsApi,
  name: string,
  signal?: AbortSignal,
): Promise<V2LoadBalancer | undefined> {
  try {
    const lb = (await api.elbv2.describeLoadBalancers({ Names: [name] }, signal)).LoadBalancers?.[0];
    return lb?.Type === "network" ? lb : undefined;
  } catch (error) {
    if (errorCode(error) === "LoadBalancerNotFoundException") return undefined;
    throw error;
  }
}

/** Target groups attached to the NLB; a TargetGroupNotFound answer means there are none. */
async function attachedTargetGroups(api: AwsApi, lbArn: string, signal?: AbortSignal): Promise<TargetGroup[]> {
  try {
    return (await api.elbv2.describeTargetGroups({ LoadBalancerArn: lbArn }, signal)).TargetGroups ?? [];
  } catch (error) {
    if (errorCode(error) === "TargetGroupNotFoundException") return [];
    throw error;
  }
}

async function attachedGroups(api: AwsApi, lbArn: string, signal?: AbortSignal): Promise<string[]> {
  return (await attachedTargetGroups(api, lbArn, signal)).map((g) => g.TargetGroupArn!);
}

/**
 * `instances` as the targets of every target group the NLB has, each on its own port: the node-change
 * path when the rest of the sync is refused, so targets still follow the nodes.
 */
export async function syncNlbTargets(
  api: AwsApi,
  lbArn: string,
  instances: readonly Ec2Instance[],
  signal?: AbortSignal,
): Promise<void> {
  for (const g of await attachedTargetGroups(api, lbArn, signal))
    if (g.TargetGroupArn && g.Port)
      await syncTargets(api, { arn: g.TargetGroupArn, spec: { nodePort: g.Port } }, instances, signal);
}

async function createNlb(
  deps: NlbDeps,
  t: NlbTarget,
  mappings: SubnetMapping[] | undefined,
  signal?: AbortSignal,
): Promise<V2LoadBalancer> {
  const groups =
    t.options.securityGroups.length > 0
      ? [...t.options.securityGroups]
      : deps.managedGroup
        ? [await ensureManagedGroup(deps, t, signal)]
        : [];
  const created = await deps.api.elbv2.createLoadBalancer(
    {
      Name: t.name,
      Type: "network",
      Scheme: t.options.internal ? "internal" : "internet-facing",
      ...(mappings ? { SubnetMappings: mappings } : { Subnets: [...t.subnets] }),
      ...(groups.length > 0 ? { SecurityGroups: groups } : {}),
      Tags: ownedTags(deps.cluster, serviceName(t.service), t.options.extraTags),
    },
    signal,
  );
  return created.LoadBalancers![0]!;
}

/**
 * Target groups, their targets and attributes, then the listeners. A target group created here that no
 * listener uses yet is deleted again when a later step fails, so a failed or throttled call leaves none
 * behind for deletion to miss (deletion finds target groups through the NLB's listeners).
 */
async function syncGroupsAndListeners(
  deps: NlbDeps,
  t: NlbTarget,
  on: { lbArn: string; instances: readonly Ec2Instance[] },
  signal?: AbortSignal,
): Promise<Set<string>> {
  const { lbArn, instances } = on;
  const wanted = new Map<number, WantedListener>();
  const created: string[] = [];
  const tags = ownedTags(deps.cluster, serviceName(t.service), t.options.extraTags);
  try {
    for (const spec of t.groups) {
      const { arn, created: isNew } = await ensureTargetGroup(deps.api, spec, { vpc: t.vpc, tags }, signal);
      if (isNew) created.push(arn);
      wanted.set(spec.servicePort, { arn, spec: spec.listener });
      await syncAttributes(deps.api, arn, spec.attributes, signal);
      await syncTargets(deps.api, { arn, spec }, instances, signal);
    }
    await syncListeners(deps.api, { lbArn, tags }, wanted, signal);
  } catch (error) {
    await dropUnused(deps.api, lbArn, created);
    throw error;
  }
  return new Set([...wanted.values()].map((w) => w.arn));
}

/** Best effort: the target groups in `arns` that no listener of the NLB forwards to. */
async function dropUnused(api: AwsApi, lbArn: string, arns: readonly string[]): Promise<void> {
  if (arns.length === 0) return;
  const listeners = await api.elbv2.describeListeners({ LoadBalancerArn: lbArn }).catch(() => undefined);
  if (!listeners) return;
  const used = new Set((listeners.Listeners ?? []).map((l) => l.DefaultActions?.[0]?.TargetGroupArn));
  for (const arn of arns)
    if (!used.has(arn)) await api.elbv2.deleteTargetGroup({ TargetGroupArn: arn }).catch(() => undefined);
}

/**
 * Upstream's bring-your-own groups: an NLB created with groups takes the annotated ones in place; AWS
 * cannot give groups to an NLB created without any, so asking for that is refused (recreate the Service).
 * Dropping the annotation leaves the groups as they are, but under `NLBSecurityGroupMode = Managed`,
 * where the NLB moves to its managed group (`syncManagedGroup`); annotated groups replacing the managed
 * group delete it once the NLB is in step (`releaseManagedGroup`).
 */
async function syncSecurityGroups(
  api: AwsApi,
  lb: V2LoadBalancer,
  wanted: readonly string[],
  signal?: AbortSignal,
): Promise<void> {
  const have = lb.SecurityGroups ?? [];
  if (wanted.length === 0 || (have.length === wanted.length && wanted.every((g) => have.includes(g)))) return;
  if (have.length === 0) {
    throw new Error(
      `annotation ${PREFIX}security-groups: NLB ${lb.LoadBalancerName} was created without security groups and AWS cannot add them; recreate the Service`,
    );
  }
  await api.elbv2.setSecurityGroups({ LoadBalancerArn: lb.LoadBalancerArn, SecurityGroups: [...wanted] }, signal);
}

async function subnetCidrs(api: AwsApi, subnets: readonly string[], signal?: AbortSignal): Promise<SubnetInfo[]> {
  const found = (await api.ec2.describeSubnets({ SubnetIds: [...subnets] }, signal)).Subnets ?? [];
  return found
    .map((s) => ({ id: s.SubnetId ?? "", cidr: s.CidrBlock ?? "", zone: s.AvailabilityZone ?? "" }))
    .filter((s) => s.id !== "" && s.cidr !== "");
}

/** The subnet mappings the annotations ask for, checked against the chosen subnets; undefined when none. */
async function fixedMappings(api: AwsApi, t: NlbTarget, signal?: AbortSignal): Promise<SubnetMapping[] | undefined> {
  const fixed = t.options.fixedAddresses;
  if (fixed.eipAllocations.length === 0 && fixed.privateIpv4Addresses.length === 0) return undefined;
  const known = await subnetCidrs(api, t.subnets, signal);
  return subnetMappings(
    inZoneOrder(t.subnets.map((id) => known.find((s) => s.id === id) ?? { id, cidr: "", zone: "" })),
    fixed,
  );
}

/** What cannot change on a live NLB is checked before anything is written; then its groups follow the Service. */
async function updateExisting(
  deps: NlbDeps,
  t: NlbTarget,
  live: { lb: V2LoadBalancer; mappings: SubnetMapping[] | undefined },
  signal?: AbortSignal,
): Promise<void> {
  const { lb } = live;
  if ((lb.Scheme === "internal") !== t.options.internal)
    throw new Error(
      `annotation ${PREFIX}internal: cannot change NLB ${t.name} from ${lb.Scheme}; recreate the Service`,
    );
  const conflict = fixedAddressConflict(lb, live.mappings);
  if (conflict) throw new Error(conflict);
  await syncSecurityGroups(deps.api, lb, t.options.securityGroups, signal);
  if (t.options.securityGroups.length === 0 && (lb.SecurityGroups ?? []).length > 0)
    await syncManagedGroup(deps, t, lb, signal);
}

/** Creates or updates the NLB for `t` with `instances` as targets; resolves the NLB. */
export async function ensureNlb(
  deps: NlbDeps,
  t: NlbTarget,
  instances: readonly Ec2Instance[],
  signal?: AbortSignal,
): Promise<V2LoadBalancer> {
  const existing = await describeNlb(deps.api, t.name, signal);
  // A live NLB keeps the subnets it was made with (subnets tagged later do not join it): its address
  // mappings are checked, and its health checks admitted, from those.
  const live = existing ? subnetsOf(existing) : [];
  const target = live.length > 0 ? { ...t, subnets: live } : t;
  const mappings = await fixedMappings(deps.api, target, signal);
  if (existing) await updateExisting(deps, target, { lb: existing, mappings }, signal);
  const lb = existing ?? (await createNlb(deps, target, mappings, signal));
  const before = await attachedGroups(deps.api, lb.LoadBalancerArn!, signal);
  const keep = await syncGroupsAndListeners(deps, t, { lbArn: lb.LoadBalancerArn!, instances }, signal);
  for (const arn of before) if (!keep.has(arn)) await deps.api.elbv2.deleteTargetGroup({ TargetGroupArn: arn }, signal);
  await syncLbAttributes(deps.api, lb.LoadBalancerArn!, t.options, signal);
  if (deps.manageNodeRules) await syncRules(deps, target, instances, signal);
  if (existing && t.options.securityGroups.length > 0)
    await releaseManagedGroup(deps, target, t.options.securityGroups, signal);
  return lb;
}

function subnetsOf(lb: V2LoadBalancer): string[] {
  return (lb.AvailabilityZones ?? []).flatMap((z) => (z.SubnetId ? [z.SubnetId] : []));
}

/**
 * Backend rules on the nodes' groups (none, and ours removed, with `manage-backend-security-group-rules:
 * "false"`). Annotated groups go on the NLB as they are (upstream writes no rules to them); frontend
 * rules an earlier version marked on them are removed.
 */
async function syncRules(
  deps: NlbDeps,
  t: NlbTarget,
  instances: readonly Ec2Instance[],
  signal?: AbortSignal,
): Promise<void> {
  const cidrs = (await subnetCidrs(deps.api, t.subnets, signal)).map((s) => s.cidr);
  const rules = t.options.manageBackendRules ? nlbNodeRules(t.name, t.groups, t.options.sourceRanges, cidrs) : [];
  await syncMarkedRules(deps.sg, { name: t.name, vpc: t.vpc, instances, rules }, signal);
}

/**
 * Deletes the NLB, its target groups and its node rules; resolves when none is left. The target groups
 * are then looked for by name and tags too: a retry after DeleteTargetGroup failed finds the NLB gone
 * and nothing attached to it. Without an NLB, only a Service of type `nlb` is looked for.
 */
export async function deleteNlb(
  deps: NlbDeps,
  clusterName: string,
  service: Service,
  signal?: AbortSignal,
): Promise<void> {
  const name = loadBalancerName(service);
  const lb = await describeNlb(deps.api, name, signal);
  if (!lb && service.metadata.annotations?.[`${PREFIX}type`] !== "nlb") return;
  if (lb) {
    const groups = await attachedGroups(deps.api, lb.LoadBalancerArn!, signal);
    if (deps.manageNodeRules && lb.VpcId)
      await syncMarkedRules(deps.sg, { name, vpc: lb.VpcId, instances: [], rules: [] }, signal);
    await deps.api.elbv2.deleteLoadBalancer({ LoadBalancerArn: lb.LoadBalancerArn }, signal);
    for (const arn of groups) await deps.api.elbv2.deleteTargetGroup({ TargetGroupArn: arn }, signal);
  }
  await deleteStrayGroups(deps.api, deps.cluster, service, signal);
  await deleteManagedGroup(deps, { clusterName, lbName: name }, service, signal);
}
