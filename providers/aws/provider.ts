/**
 * The AWS provider built from its validated configuration: one API client (SDK clients, retries), the
 * instance cache shared by instances, routes and load balancers, and a first line at start that shows
 * what it reaches. Loaded only when `--cloud-provider=aws` is selected (see index.ts).
 */
import type { CloudProvider, ProviderContext, ProviderInit } from "../../src/cloud/provider.ts";
import type { Lister } from "../../src/kube/informer.ts";
import type { Node } from "../../src/kube/objects.ts";
import { createAwsApi, type AwsApi, type AwsApiOptions } from "./api.ts";
import type { AwsConfig } from "./config.ts";
import { InstanceCache } from "./instance-cache.ts";
import { awsInstances } from "./instances.ts";
import { awsLoadBalancer } from "./load-balancer.ts";
import { awsRoutes, findRouteTable, type RoutesDeps } from "./routes.ts";
import { clusterTagKey, type ClusterTags } from "./tags.ts";
import { ZoneCache } from "./zones.ts";

/** Knobs for tests; production uses the defaults. */
export interface AwsProviderOptions {
  readonly api?: Partial<Omit<AwsApiOptions, "region" | "overrides" | "assumeRole">>;
  readonly cacheMaxAgeMs?: number;
  readonly securityGroupRetryMs?: number;
}

/** Nodes per batched lookup: one filter of at most 150 values per call, as upstream chunks names. */
export const MAX_BATCH_SIZE = 150;

async function countClusterInstances(api: AwsApi, cluster: ClusterTags, signal: AbortSignal): Promise<number> {
  const filters = [
    { Name: "tag-key", Values: [clusterTagKey(cluster.clusterID)] },
    { Name: "instance-state-name", Values: ["pending", "running", "stopping", "stopped"] },
  ];
  let count = 0;
  let token: string | undefined;
  do {
    const page = await api.ec2.describeInstances({ Filters: filters, NextToken: token }, signal);
    for (const r of page.Reservations ?? []) count += r.Instances?.length ?? 0;
    token = page.NextToken || undefined;
  } while (token);
  return count;
}

/**
 * Whether the load-balancer APIs answer (one item, so it is cheap on any account); a private endpoint typo shows at
 * start.
 */
async function loadBalancerApis(api: AwsApi, signal: AbortSignal): Promise<string> {
  const probe = (name: string, call: Promise<unknown>): Promise<string> =>
    call.then(
      () => `${name} reachable`,
      (error: unknown) => `${name} NOT reachable (${(error as Error).message})`,
    );
  const answers = await Promise.all([
    probe("ELB", api.elb.describeLoadBalancers({ PageSize: 1 }, signal)),
    probe("ELBv2", api.elbv2.describeLoadBalancers({ PageSize: 1 }, signal)),
  ]);
  return answers.join(", ");
}

/** One line that shows the provider reaches AWS with working credentials, and what it found. */
async function announce(api: AwsApi, routes: RoutesDeps, context: ProviderContext, signal: AbortSignal): Promise<void> {
  const tag = clusterTagKey(routes.cluster.clusterID);
  try {
    const [region, count] = await Promise.all([api.region(), countClusterInstances(api, routes.cluster, signal)]);
    const table = await findRouteTable(routes, signal).then(
      (t) => `route table ${t.RouteTableId}`,
      (error: unknown) => `no route table (${(error as Error).message})`,
    );
    const apis = await loadBalancerApis(api, signal);
    const line = `aws: region ${region}, cluster tag ${tag}: ${count} instance(s), ${table}; ${apis}`;
    if (apis.includes("NOT reachable")) context.logger.warn(line);
    else context.logger.info(line);
  } catch (error) {
    context.logger.warn(`aws: cannot reach EC2 yet (${(error as Error).message}); controllers will retry`);
  }
}

export function createAwsProvider(
  config: AwsConfig,
  context: ProviderContext,
  options: AwsProviderOptions = {},
): CloudProvider {
  const api = createAwsApi(
    { ...options.api, region: config.region, overrides: config.overrides, assumeRole: config.assumeRole },
    context,
  );
  const cluster: ClusterTags = { clusterID: config.clusterID, legacy: config.legacyClusterTag };
  const cache = new InstanceCache(api, cluster, { maxAgeMs: options.cacheMaxAgeMs });
  let nodes: Lister<Node> | undefined;
  const routeDeps: RoutesDeps = {
    api,
    cache,
    cluster,
    routeTableID: config.routeTableID,
    nodes: () => nodes,
    logger: context.logger,
  };
  const zones = new ZoneCache(api);
  return {
    name: "aws",
    instances: awsInstances({
      cache,
      zones,
      region: api.region,
      families: config.nodeIPFamilies,
      maxBatchSize: MAX_BATCH_SIZE,
    }),
    loadBalancer: awsLoadBalancer({
      api,
      cache,
      cluster,
      config,
      logger: context.logger,
      zones,
      securityGroupRetryMs: options.securityGroupRetryMs,
    }),
    routes: awsRoutes(routeDeps),
    async initialize(init: ProviderInit) {
      nodes = init.nodes;
      await announce(api, routeDeps, context, init.signal);
    },
    close(): Promise<void> {
      api.close();
      return Promise.resolve();
    },
  };
}
