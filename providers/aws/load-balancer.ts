/**
 * LoadBalancer as classic ELBs (cloud-provider-aws `EnsureLoadBalancer` for ELB): one ELB per Service,
 * named "a" + UID, TCP listeners LB port → NodePort, a per-ELB security group, the backends' groups opened
 * to it, instances registered to match the node set, tags `kubernetes.io/cluster/<id>=owned` and
 * `kubernetes.io/service-name`. The status hostname is the ELB's DNS name.
 */
import type { LoadBalancerDescription } from "@aws-sdk/client-elastic-load-balancing";
import { RetryError } from "../../src/cloud/errors.ts";
import type { LoadBalancer, EnsuredLoadBalancer } from "../../src/cloud/provider.ts";
import type { Node, Service } from "../../src/kube/objects.ts";
import type { Logger } from "../../src/log/logger.ts";
import { errorCode, type AwsApi } from "./api.ts";
import type { AwsConfig } from "./config.ts";
import { isGone, type Ec2Instance } from "./ec2-instance.ts";
import type { InstanceCache } from "./instance-cache.ts";
import { parseLbOptions, type LbOptions } from "./lb-annotations.ts";
import { syncNodeRules } from "./lb-node-rules.ts";
import { desiredListeners, loadBalancerName, serviceName, validateService } from "./lb-plan.ts";
import { describeElb, reconcileElb, type ElbTarget } from "./lb-reconcile.ts";
import { deleteOwnGroup, desiredLbRules, ensureOwnGroup, type SecurityGroupDeps } from "./lb-security-groups.ts";
import { findSubnets } from "./lb-subnets.ts";
import { instancesOfNodes } from "./node-instances.ts";
import type { ClusterTags } from "./tags.ts";

export interface LoadBalancerDeps {
  readonly api: AwsApi;
  readonly cache: InstanceCache;
  readonly cluster: ClusterTags;
  readonly config: AwsConfig;
  readonly logger: Logger;
  /** Delay before deleting the ELB's security group again while AWS still reports it in use. */
  readonly securityGroupRetryMs?: number;
}

function selected(nodes: readonly Node[], labels: Readonly<Record<string, string>>): Node[] {
  return nodes.filter((n) => Object.entries(labels).every(([k, v]) => n.metadata.labels?.[k] === v));
}

const statusOf = (lb: { DNSName?: string }): EnsuredLoadBalancer["status"] => ({ ingress: lb.DNSName ? [{ hostname: lb.DNSName }] : [] });

export function awsLoadBalancer(deps: LoadBalancerDeps): LoadBalancer {
  const sgDeps: SecurityGroupDeps = { api: deps.api, cluster: deps.cluster, warn: (m) => deps.logger.warn(m) };

  /** The live instances behind `nodes`; nodes without one are left out (logged). */
  async function backends(nodes: readonly Node[], options: LbOptions, signal?: AbortSignal): Promise<Ec2Instance[]> {
    const chosen = selected(nodes, options.targetNodeLabels);
    const found = await instancesOfNodes(deps.cache, chosen, signal);
    const live: Ec2Instance[] = [];
    found.forEach((f, i) => {
      if (f instanceof Error || f === undefined || isGone(f)) deps.logger.info(`node ${chosen[i]!.metadata.name} has no running instance; not a backend`, { error: f instanceof Error ? f.message : "not found" });
      else live.push(f);
    });
    return live;
  }

  function vpcOf(instances: readonly Ec2Instance[], existing: LoadBalancerDescription | undefined): string {
    const vpc = deps.config.vpc || existing?.VPCId || instances.find((i) => i.vpcId !== "")?.vpcId;
    if (!vpc) throw new Error("cannot tell which VPC the ELB belongs in: no backend instance has one; set VPC in the cloud config");
    return vpc;
  }

  async function securityGroups(service: Service, options: LbOptions, target: { name: string; vpc: string; ports: number[] }, signal?: AbortSignal): Promise<{ groups: string[]; own?: string }> {
    if (options.securityGroups.length > 0) return { groups: [...options.securityGroups, ...options.extraSecurityGroups] };
    if (deps.config.elbSecurityGroup !== "") return { groups: [deps.config.elbSecurityGroup, ...options.extraSecurityGroups] };
    const lb = { name: target.name, service: serviceName(service), vpc: target.vpc };
    const own = await ensureOwnGroup(sgDeps, lb, desiredLbRules(target.ports, options.sourceRanges), signal);
    return { groups: [own, ...options.extraSecurityGroups], own };
  }

  async function registerOnly(lb: LoadBalancerDescription, groups: { groups: string[]; own?: string }, instances: readonly Ec2Instance[], signal?: AbortSignal): Promise<void> {
    const name = lb.LoadBalancerName!;
    if (!deps.config.disableSecurityGroupIngress && groups.groups[0]) await syncNodeRules(sgDeps, { group: groups.groups[0], revokeStale: groups.own !== undefined }, instances, signal);
    const have = new Set((lb.Instances ?? []).map((i) => i.InstanceId!));
    const want = new Set(instances.map((i) => i.id));
    const add = [...want].filter((id) => !have.has(id));
    const remove = [...have].filter((id) => !want.has(id));
    if (add.length > 0) await deps.api.elb.registerInstances({ LoadBalancerName: name, Instances: add.map((InstanceId) => ({ InstanceId })) }, signal);
    if (remove.length > 0) await deps.api.elb.deregisterInstances({ LoadBalancerName: name, Instances: remove.map((InstanceId) => ({ InstanceId })) }, signal);
  }

  return {
    getLoadBalancerName: (_clusterName, service) => loadBalancerName(service),

    async getLoadBalancer(_clusterName, service, signal) {
      const lb = await describeElb(deps.api, loadBalancerName(service), signal);
      return lb ? { exists: true, status: statusOf(lb) } : { exists: false, status: {} };
    },

    async ensureLoadBalancer(_clusterName, service, nodes, signal) {
      const options = parseLbOptions(service);
      validateService(service);
      const listeners = desiredListeners(service);
      const name = loadBalancerName(service);
      const [instances, existing] = await Promise.all([backends(nodes, options, signal), describeElb(deps.api, name, signal)]);
      const vpc = vpcOf(instances, existing);
      const subnets = await findSubnets(deps.api, deps.cluster, { vpc, internal: options.internal, annotated: options.subnets, fallback: deps.config.subnetID }, signal);
      const groups = await securityGroups(service, options, { name, vpc, ports: listeners.map((l) => l.LoadBalancerPort!) }, signal);
      const target: ElbTarget = { name, service, options, listeners, subnets, securityGroups: groups.groups };
      const lb = await reconcileElb({ api: deps.api, cluster: deps.cluster, probe: deps.config.healthProbe, logger: deps.logger }, target, existing, signal);
      await registerOnly(lb, groups, instances, signal);
      return { status: statusOf(lb), warnings: options.warnings };
    },

    async updateLoadBalancer(_clusterName, service, nodes, signal) {
      const options = parseLbOptions(service);
      const name = loadBalancerName(service);
      const [instances, lb] = await Promise.all([backends(nodes, options, signal), describeElb(deps.api, name, signal)]);
      if (!lb) throw new Error(`load balancer ${name} does not exist`);
      const own = options.securityGroups.length === 0 && deps.config.elbSecurityGroup === "";
      const groups = lb.SecurityGroups ?? [];
      await registerOnly(lb, { groups: [...groups], own: own ? groups[0] : undefined }, instances, signal);
    },

    async ensureLoadBalancerDeleted(_clusterName, service, signal) {
      const name = loadBalancerName(service);
      const lb = await describeElb(deps.api, name, signal);
      // The own group's node rules go with the group (deleteOwnGroup); shared groups keep theirs for other ELBs.
      if (lb) await deps.api.elb.deleteLoadBalancer({ LoadBalancerName: name }, signal);
      try {
        const deleted = await deleteOwnGroup(sgDeps, name, signal);
        if (deleted) deps.logger.info(`deleted security group ${deleted} of load balancer ${name}`);
      } catch (error) {
        if (errorCode(error) !== "DependencyViolation") throw error;
        throw new RetryError(`security group of load balancer ${name} is still in use (the ELB's network interfaces linger after deletion); retrying`, deps.securityGroupRetryMs ?? 15_000, { cause: error });
      }
    },
  };
}
