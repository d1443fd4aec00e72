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
  if (r.existing && groups.own === undefined) await releaseOwnGroup(deps, r, groups.groups, signal);
  return lb;
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
): Promise<void> {
  const own = { names: [ownGroupName(r.name)], vpc: r.vpc, inUse, lbName: r.name };
  for (const id of await deleteOwnGroupsWhenFree(deps.sg, own, deps.securityGroupRetryMs, signal))
    deps.logger.info(`deleted security group ${id}, which ELB ${r.name} no longer uses`);
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

/** Deletes the ELB and its own group; the own group's node rules go with it, shared groups keep theirs. */
export async function deleteElb(deps: ElbDeps, name: string, exists: boolean, signal?: AbortSignal): Promise<void> {
  if (exists) await deps.api.elb.deleteLoadBalancer({ LoadBalancerName: name }, signal);
  const own = { names: [ownGroupName(name)], lbName: name };
  for (const id of await deleteOwnGroupsWhenFree(deps.sg, own, deps.securityGroupRetryMs, signal))
    deps.logger.info(`deleted security group ${id} of load balancer ${name}`);
}
