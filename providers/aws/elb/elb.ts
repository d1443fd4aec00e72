/**
 * Classic ELBs (cloud-provider-aws `EnsureLoadBalancer` for ELB): TCP listeners LB port → NodePort, a
 * per-ELB security group (unless annotated or configured groups replace it), the backends' groups opened
 * to it, and instances registered to match the node set.
 */
import type { LoadBalancerDescription } from "@aws-sdk/client-elastic-load-balancing";
import type { Service } from "../../../src/kube/objects.ts";
import type { Logger } from "../../../src/log/logger.ts";
import type { AwsApi } from "../api.ts";
import type { AwsConfig } from "../config.ts";
import type { Ec2Instance } from "../ec2-instance.ts";
import type { LbOptions } from "../lb-annotations.ts";
import { syncNodeRules } from "../lb-node-rules.ts";
import { serviceName } from "../lb-names.ts";
import { desiredListeners, validateService } from "./plan.ts";
import { reconcileElb } from "./reconcile.ts";
import { releaseSharedGroupRules } from "./shared-group-rule.ts";
import {
  deleteOwnGroupsWhenFree,
  desiredLbRules,
  elbOwnGroup,
  ensureOwnGroup,
  ownGroupName,
  type SecurityGroupDeps,
} from "../lb-security-groups.ts";
import type { ClusterTags } from "../tags.ts";

export interface ElbDeps {
  readonly api: AwsApi;
  readonly cluster: ClusterTags;
  readonly config: AwsConfig;
  readonly logger: Logger;
  readonly sg: SecurityGroupDeps;
  readonly securityGroupRetryMs: number;
}

export interface ElbPlacement {
  readonly name: string;
  readonly vpc: string;
  readonly subnets: readonly string[];
}

interface Groups {
  readonly groups: string[];
  /** The ELB's own group, when it has one. */
  readonly own?: string;
}

export interface ElbRequest extends ElbPlacement {
  readonly service: Service;
  readonly options: LbOptions;
  readonly existing?: LoadBalancerDescription;
  readonly instances: readonly Ec2Instance[];
}

async function securityGroups(
  deps: ElbDeps,
  r: ElbRequest,
  ports: readonly number[],
  signal?: AbortSignal,
): Promise<Groups> {
  const { service, options } = r;
  if (options.securityGroups.length > 0) return { groups: [...options.securityGroups, ...options.extraSecurityGroups] };
  if (deps.config.elbSecurityGroup !== "")
    return { groups: [deps.config.elbSecurityGroup, ...options.extraSecurityGroups] };
  const lb = elbOwnGroup({ name: r.name, service: serviceName(service), vpc: r.vpc, extraTags: options.extraTags });
  const own = await ensureOwnGroup(deps.sg, lb, desiredLbRules(ports, options.sourceRanges), signal);
  return { groups: [own, ...options.extraSecurityGroups], own };
}

/** Node rules and instance registration: all that follows the node set. */
export async function syncBackends(
  deps: ElbDeps,
  lb: LoadBalancerDescription,
  backends: { groups: Groups; instances: readonly Ec2Instance[] },
  signal?: AbortSignal,
): Promise<void> {
  const { groups, instances } = backends;
  const name = lb.LoadBalancerName!;
  if (!deps.config.disableSecurityGroupIngress && groups.groups[0])
    await syncNodeRules(deps.sg, { group: groups.groups[0], revokeStale: groups.own !== undefined }, instances, signal);
  const have = new Set((lb.Instances ?? []).map((i) => i.InstanceId!));
  const want = new Set(instances.map((i) => i.id));
  const add = [...want].filter((id) => !have.has(id));
  const remove = [...have].filter((id) => !want.has(id));
  if (add.length > 0)
    await deps.api.elb.registerInstances(
      { LoadBalancerName: name, Instances: add.map((InstanceId) => ({ InstanceId })) },
      signal,
    );
  if (remove.length > 0)
    await deps.api.elb.deregisterInstances(
      { LoadBalancerName: name, Instances: remove.map((InstanceId) => ({ InstanceId })) },
      signal,
    );
}

export async function ensureElb(deps: ElbDeps, r: ElbRequest, signal?: AbortSignal): Promise<LoadBalancerDescription> {
  validateService(r.service);
  const listeners = desiredListeners(r.service, r.options.listener);
  const groups = await securityGroups(
    deps,
    r,
    listeners.map((l) => l.LoadBalancerPort!),
    signal,
  );
  const target = {
    name: r.name,
    service: r.service,
    options: r.options,
    listeners,
    subnets: r.subnets,
    securityGroups: groups.groups,
  };
  const lb = await reconcileElb(
    { api: deps.api, cluster: deps.cluster, probe: deps.config.healthProbe, logger: deps.logger },
    target,
    r.existing,
    signal,
  );
  await syncBackends(deps, lb, { groups, instances: r.instances }, signal);
  await releaseFormerGroups(deps, r, groups, signal);
  return lb;
}

/** After a sync that changed the ELB's groups: the own group it no longer uses, and the former first group's rule. */
async function releaseFormerGroups(deps: ElbDeps, r: ElbRequest, groups: Groups, signal?: AbortSignal): Promise<void> {
  if (!r.existing) return;
  const deleted = groups.own === undefined ? await releaseOwnGroup(deps, r, groups.groups, signal) : [];
  const former = r.existing.SecurityGroups?.[0];
  if (deps.config.disableSecurityGroupIngress || !former || former === groups.groups[0] || deleted.includes(former))
    return;
  await releaseSharedGroupRules(deps.sg, { groups: [former], lbName: r.name }, signal);
}

/**
 * An ELB whose groups are annotated or configured: the own group it carried before is deleted, and the
 * rules admitting it revoked (upstream's `removeOwnedSecurityGroups`). Looked for by name on every sync,
 * the one call the own group's upkeep costs otherwise, so a deletion AWS refused for a while is retried.
 * Groups the Service named stay as they are: they were its choice, not this provider's.
 */
async function releaseOwnGroup(
  deps: ElbDeps,
  r: ElbPlacement,
  inUse: readonly string[],
  signal?: AbortSignal,
): Promise<string[]> {
  const own = { names: [ownGroupName(r.name)], vpc: r.vpc, inUse, lbName: r.name };
  const deleted = await deleteOwnGroupsWhenFree(deps.sg, own, deps.securityGroupRetryMs, signal);
  for (const id of deleted) deps.logger.info(`deleted security group ${id}, which ELB ${r.name} no longer uses`);
  return deleted;
}

/** The groups an existing ELB uses, and which of them is its own. */
export function groupsOf(
  deps: ElbDeps,
  lb: LoadBalancerDescription,
  options: Pick<LbOptions, "securityGroups">,
): Groups {
  const own = options.securityGroups.length === 0 && deps.config.elbSecurityGroup === "";
  const groups = [...(lb.SecurityGroups ?? [])];
  return { groups, own: own ? groups[0] : undefined };
}

/** What a deletion knows of the ELB: the description, when it still exists, and the annotated groups. */
export interface ElbRemains {
  readonly name: string;
  readonly lb?: LoadBalancerDescription;
  /** The ELB exists, or the Service asks for one: an NLB's Service never releases a classic ELB's rule. */
  readonly classic: boolean;
  readonly annotated: readonly string[];
}

/**
 * Deletes the ELB and its own group; the own group's node rules go with it. The rule admitting a shared
 * first group (annotated or `ElbSecurityGroup`) is revoked once no other ELB carries that group.
 */
export async function deleteElb(deps: ElbDeps, at: ElbRemains, signal?: AbortSignal): Promise<void> {
  const { name, lb } = at;
  if (lb) await deps.api.elb.deleteLoadBalancer({ LoadBalancerName: name }, signal);
  const own = { names: [ownGroupName(name)], lbName: name };
  const deleted = await deleteOwnGroupsWhenFree(deps.sg, own, deps.securityGroupRetryMs, signal);
  for (const id of deleted) deps.logger.info(`deleted security group ${id} of load balancer ${name}`);
  if (deps.config.disableSecurityGroupIngress || !at.classic) return;
  const shared = new Set([lb?.SecurityGroups?.[0], at.annotated[0], deps.config.elbSecurityGroup]);
  const groups = [...shared].filter((g): g is string => !!g && !deleted.includes(g));
  await releaseSharedGroupRules(deps.sg, { groups, lbName: name }, signal);
}
