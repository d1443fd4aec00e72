/**
 * LoadBalancer over AWS: a classic ELB per Service by default, a network load balancer with
 * `aws-load-balancer-type: nlb`. Both are named "a" + UID, tagged `kubernetes.io/cluster/<id>=owned` and
 * `kubernetes.io/service-name`, and report their DNS name as the status hostname. The type cannot change
 * on a live Service. Backends are the running instances behind the given nodes.
 */
import type { LoadBalancer } from "../../src/cloud/provider.ts";
import type { Node, Service } from "../../src/kube/objects.ts";
import type { Logger } from "../../src/log/logger.ts";
import type { AwsApi } from "./api.ts";
import type { AwsConfig } from "./config.ts";
import type { Ec2Instance } from "./ec2-instance.ts";
import { deleteElb, ensureElb, groupsOf, syncBackends, type ElbDeps } from "./elb/elb.ts";
import type { InstanceCache } from "./instance-cache.ts";
import {
  annotatedGroups,
  asksForClassic,
  nodeSelection,
  PREFIX,
  parseLbOptions,
  type LbOptions,
} from "./lb-annotations.ts";
import { loadBalancerName } from "./lb-names.ts";
import { describeElb } from "./elb/reconcile.ts";
import { findSubnets } from "./lb-subnets.ts";
import { deleteNlb, describeNlb, ensureNlb, syncNlbTargets, type NlbDeps } from "./nlb/nlb.ts";
import { desiredTargetGroups, validateNlbService } from "./nlb/plan.ts";
import { instancesOfNodes } from "./node-instances.ts";
import type { ClusterTags } from "./tags.ts";
import { ZoneCache } from "./zones.ts";

export interface LoadBalancerDeps {
  readonly api: AwsApi;
  readonly cache: InstanceCache;
  readonly cluster: ClusterTags;
  readonly config: AwsConfig;
  readonly logger: Logger;
  /** Zone details (shared with the instances API); one of its own when not given. */
  readonly zones?: ZoneCache;
  /** Delay before deleting the ELB's security group again while AWS still reports it in use. */
  readonly securityGroupRetryMs?: number;
}

/** Upstream's `filterTargetNodes`: every label named, with its value where one is given. */
function selected(nodes: readonly Node[], labels: Readonly<Record<string, string>>): Node[] {
  return nodes.filter((n) =>
    Object.entries(labels).every(([k, v]) => {
      const value = n.metadata.labels?.[k];
      return value !== undefined && (v === "" || value === v);
    }),
  );
}

const statusOf = (lb: { DNSName?: string }): { ingress: { hostname: string }[] } => ({
  ingress: lb.DNSName ? [{ hostname: lb.DNSName }] : [],
});

function typeChange(name: string, from: string, to: string): Error {
  return new Error(
    `annotation ${PREFIX}type: load balancer ${name} is a ${from}; it cannot become a ${to}; recreate the Service`,
  );
}

export function awsLoadBalancer(deps: LoadBalancerDeps): LoadBalancer {
  const zones = deps.zones ?? new ZoneCache(deps.api);
  const sg = { api: deps.api, cluster: deps.cluster, warn: (m: string) => deps.logger.warn(m) };
  const elbDeps: ElbDeps = { ...deps, sg, securityGroupRetryMs: deps.securityGroupRetryMs ?? 15_000 };
  const nlbDeps: NlbDeps = {
    api: deps.api,
    cluster: deps.cluster,
    sg,
    manageNodeRules: !deps.config.disableSecurityGroupIngress,
    managedGroup: deps.config.nlbManagedSecurityGroup,
    securityGroupRetryMs: elbDeps.securityGroupRetryMs,
  };

  /** Running instances behind `nodes` (upstream registers only running ones); others are left out, logged. */
  async function backends(
    nodes: readonly Node[],
    options: Pick<LbOptions, "targetNodeLabels">,
    signal?: AbortSignal,
  ): Promise<Ec2Instance[]> {
    const chosen = selected(nodes, options.targetNodeLabels);
    const found = await instancesOfNodes(deps.cache, chosen, signal);
    const running: Ec2Instance[] = [];
    found.forEach((f, i) => {
      if (f instanceof Error || f?.state !== "running")
        deps.logger.info(`node ${chosen[i]!.metadata.name} has no running instance; not a backend`, {
          error: f instanceof Error ? f.message : (f?.state ?? "not found"),
        });
      else running.push(f);
    });
    return running;
  }

  async function placement(
    service: Service,
    options: LbOptions,
    known: { instances: readonly Ec2Instance[]; vpc?: string },
    signal?: AbortSignal,
  ): Promise<{ name: string; vpc: string; subnets: string[] }> {
    const vpc = deps.config.vpc || known.vpc || known.instances.find((i) => i.vpcId !== "")?.vpcId;
    if (!vpc)
      throw new Error(
        "cannot tell which VPC the load balancer belongs in: no backend instance has one; set VPC in the cloud config",
      );
    const subnets = await findSubnets(
      { api: deps.api, zones, cluster: deps.cluster },
      { vpc, internal: options.internal, annotated: options.subnets, fallback: deps.config.subnetID },
      signal,
    );
    return { name: loadBalancerName(service), vpc, subnets };
  }

  async function ensureNetwork(
    of: { clusterName: string; service: Service; options: LbOptions },
    nodes: readonly Node[],
    signal?: AbortSignal,
  ): Promise<{ DNSName?: string }> {
    const { clusterName, service, options } = of;
    validateNlbService(service);
    const groups = desiredTargetGroups(deps.cluster.clusterID, service, options, deps.config.healthProbe);
    const name = loadBalancerName(service);
    const [instances, elb, nlb] = await Promise.all([
      backends(nodes, options, signal),
      describeElb(deps.api, name, signal),
      describeNlb(deps.api, name, signal),
    ]);
    if (elb) throw typeChange(name, "classic ELB", "network load balancer");
    const where = await placement(service, options, { instances, vpc: nlb?.VpcId }, signal);
    return ensureNlb(nlbDeps, { ...where, clusterName, service, options, groups }, instances, signal);
  }

  async function ensureClassic(
    service: Service,
    options: LbOptions,
    nodes: readonly Node[],
    signal?: AbortSignal,
  ): Promise<{ DNSName?: string }> {
    const name = loadBalancerName(service);
    const [instances, existing, nlb] = await Promise.all([
      backends(nodes, options, signal),
      describeElb(deps.api, name, signal),
      describeNlb(deps.api, name, signal),
    ]);
    if (nlb) throw typeChange(name, "network load balancer", "classic ELB");
    const where = await placement(service, options, { instances, vpc: existing?.VPCId }, signal);
    return ensureElb(elbDeps, { ...where, service, options, existing, instances }, signal);
  }

  return {
    getLoadBalancerName: (_clusterName, service) => loadBalancerName(service),

    async getLoadBalancer(_clusterName, service, signal) {
      const name = loadBalancerName(service);
      const lb = (await describeElb(deps.api, name, signal)) ?? (await describeNlb(deps.api, name, signal));
      return lb ? { exists: true, status: statusOf(lb) } : { exists: false, status: {} };
    },

    async ensureLoadBalancer(clusterName, service, nodes, signal) {
      const options = parseLbOptions(service);
      const lb =
        options.kind === "nlb"
          ? await ensureNetwork({ clusterName, service, options }, nodes, signal)
          : await ensureClassic(service, options, nodes, signal);
      return { status: statusOf(lb), warnings: options.warnings };
    },

    // Node changes: a classic ELB's backends follow target-node-labels alone (upstream's UpdateLoadBalancer);
    // an NLB is ensured whole, and when that fails (a refused annotation, internal or eip-allocations
    // changed on the live NLB) its targets still follow the nodes before the error is reported.
    async updateLoadBalancer(clusterName, service, nodes, signal) {
      const name = loadBalancerName(service);
      const selection = nodeSelection(service);
      const [instances, lb] = await Promise.all([
        backends(nodes, selection, signal),
        describeElb(deps.api, name, signal),
      ]);
      if (lb) {
        await syncBackends(elbDeps, lb, { groups: groupsOf(elbDeps, lb, selection), instances }, signal);
        return;
      }
      // Looked for only when no classic ELB has the name: a node change costs one describe call, not two.
      const nlb = await describeNlb(deps.api, name, signal);
      try {
        const options = parseLbOptions(service);
        if (options.kind !== "nlb")
          throw nlb
            ? typeChange(name, "network load balancer", "classic ELB")
            : new Error(`load balancer ${name} does not exist`);
        await ensureNetwork({ clusterName, service, options }, nodes, signal);
      } catch (error) {
        if (nlb)
          await syncNlbTargets(deps.api, nlb.LoadBalancerArn!, instances, signal).catch((e: unknown) =>
            deps.logger.warn(`NLB ${name}: targets not moved to the current nodes`, { error: String(e) }),
          );
        throw error;
      }
    },

    async ensureLoadBalancerDeleted(clusterName, service, signal) {
      const name = loadBalancerName(service);
      await deleteNlb(nlbDeps, clusterName, service, signal);
      const lb = await describeElb(deps.api, name, signal);
      const classic = lb !== undefined || asksForClassic(service);
      await deleteElb(elbDeps, { name, lb, classic, annotated: annotatedGroups(service) }, signal);
    },
  };
}
