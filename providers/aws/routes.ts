/**
 * Pod-CIDR routes in the cluster's VPC route table (cloud-provider-aws `aws_routes.go`): the table is
 * `RouteTableID` from the config, else the one table tagged for the cluster. Routes point at instance
 * IDs; the target instance gets source/destination checking turned off first, and a blackholed route
 * for the same CIDR is replaced. Beyond upstream: IPv6 pod CIDRs are routed too (`DestinationIpv6CidrBlock`).
 */
import type { Route as Ec2Route, RouteTable } from "@aws-sdk/client-ec2";
import type { Route, Routes } from "../../src/cloud/provider.ts";
import type { Lister } from "../../src/kube/informer.ts";
import type { Node } from "../../src/kube/objects.ts";
import type { Logger } from "../../src/log/logger.ts";
import type { AwsApi } from "./api.ts";
import { errorCode } from "./call.ts";
import { isGone, instanceIDFromProviderID, type Ec2Instance } from "./ec2-instance.ts";
import type { InstanceCache } from "./instance-cache.ts";
import { instancesOfNodes } from "./node-instances.ts";
import { tagMap, taggedForCluster, type ClusterTags } from "./tags.ts";

export interface RoutesDeps {
  readonly api: AwsApi;
  readonly cache: InstanceCache;
  readonly cluster: ClusterTags;
  readonly routeTableID: string;
  /** The manager's Node cache, once the provider is initialised. */
  readonly nodes: () => Lister<Node> | undefined;
  readonly logger: Logger;
}

const destinationOf = (r: Ec2Route): string => r.DestinationCidrBlock ?? r.DestinationIpv6CidrBlock ?? "";
const destinationInput = (cidr: string): { DestinationCidrBlock: string } | { DestinationIpv6CidrBlock: string } =>
  cidr.includes(":") ? { DestinationIpv6CidrBlock: cidr } : { DestinationCidrBlock: cidr };

export async function findRouteTable(deps: RoutesDeps, signal?: AbortSignal): Promise<RouteTable> {
  if (deps.routeTableID !== "") {
    const answer = await deps.api.ec2.describeRouteTables(
      { Filters: [{ Name: "route-table-id", Values: [deps.routeTableID] }] },
      signal,
    );
    const table = answer.RouteTables?.[0];
    if (!table) throw new Error(`route table ${deps.routeTableID} (RouteTableID in the cloud config) does not exist`);
    return table;
  }
  const tagged: RouteTable[] = [];
  let token: string | undefined;
  do {
    const page = await deps.api.ec2.describeRouteTables({ NextToken: token }, signal);
    tagged.push(...(page.RouteTables ?? []).filter((t) => taggedForCluster(tagMap(t.Tags), deps.cluster)));
    token = page.NextToken || undefined;
  } while (token);
  if (tagged.length !== 1) {
    const found =
      tagged.length === 0 ? "none is" : `${tagged.length} are (${tagged.map((t) => t.RouteTableId).join(", ")})`;
    throw new Error(
      `expected exactly one route table tagged for cluster ${deps.cluster.clusterID}, but ${found}; tag one or set RouteTableID`,
    );
  }
  return tagged[0]!;
}

/** Node names by instance ID, from the Node cache's providerIDs. */
function nodeNamesByInstance(nodes: Lister<Node> | undefined): Map<string, string> {
  const names = new Map<string, string>();
  for (const node of nodes?.list() ?? []) {
    const id = instanceIDFromProviderID(node.spec?.providerID ?? "");
    if (id) names.set(id, node.metadata.name);
  }
  return names;
}

/**
 * The Node a route points at: the Node whose providerID names the instance, else the instance's private
 * DNS name (the name kubelet registers on AWS), else none.
 */
function targetNodeOf(id: string, instance: Ec2Instance | undefined, names: Map<string, string>): string {
  return names.get(id) ?? instance?.privateDnsName ?? "";
}

async function instanceFor(deps: RoutesDeps, nodeName: string, signal?: AbortSignal): Promise<Ec2Instance> {
  const node = deps.nodes()?.get(nodeName) ?? { metadata: { name: nodeName } };
  const [found] = await instancesOfNodes(deps.cache, [node], signal);
  if (found instanceof Error) throw found;
  if (found === undefined || isGone(found)) throw new Error(`no running EC2 instance for node ${nodeName}`);
  return found;
}

async function disableSourceDestCheck(deps: RoutesDeps, instance: Ec2Instance, signal?: AbortSignal): Promise<void> {
  if (!instance.sourceDestCheck) return;
  await deps.api.ec2.modifyInstanceAttribute({ InstanceId: instance.id, SourceDestCheck: { Value: false } }, signal);
  deps.cache.invalidate([instance.id]);
}

/**
 * An instance route whose instance is terminated or unknown. AWS marks such a route `blackhole`; the
 * instance's state is read as well, so the answer does not rest on the route's state alone.
 */
async function targetGone(deps: RoutesDeps, route: Ec2Route, signal?: AbortSignal): Promise<boolean> {
  if (!route.InstanceId) return false;
  const found = (await deps.cache.byIds([route.InstanceId], signal)).get(route.InstanceId);
  return found === undefined || (!(found instanceof Error) && isGone(found));
}

export function awsRoutes(deps: RoutesDeps): Routes {
  async function deleteDestination(tableID: string, cidr: string, signal?: AbortSignal): Promise<void> {
    try {
      await deps.api.ec2.deleteRoute({ RouteTableId: tableID, ...destinationInput(cidr) }, signal);
    } catch (error) {
      if (errorCode(error) !== "InvalidRoute.NotFound") throw error;
    }
  }

  return {
    async listRoutes(clusterName, signal) {
      const table = await findRouteTable(deps, signal);
      const routes = (table.Routes ?? []).filter((r) => r.InstanceId && destinationOf(r) !== "");
      const instances = await deps.cache.byIds(
        routes.map((r) => r.InstanceId!),
        signal,
      );
      const names = nodeNamesByInstance(deps.nodes());
      return routes.flatMap((r): Route[] => {
        const found = instances.get(r.InstanceId!);
        const instance = found instanceof Error ? undefined : found;
        const cidr = destinationOf(r);
        // As upstream: a live route whose instance DescribeInstances did not answer for (eventual
        // consistency, an instance of another account) is left out, never taken for a blackhole that
        // the route controller would delete. AWS marks a route to a purged instance `blackhole` itself.
        if (instance === undefined && r.State !== "blackhole") {
          deps.logger.warn(`unable to find instance ID ${r.InstanceId} in the list of instances being routed to`);
          return [];
        }
        const blackhole = r.State === "blackhole" || (instance !== undefined && isGone(instance));
        const targetNode = blackhole ? "" : targetNodeOf(r.InstanceId!, instance, names);
        return [{ name: `${clusterName}-${cidr}`, targetNode, destinationCIDR: cidr, blackhole }];
      });
    },

    async createRoute(_clusterName, _nameHint, route, signal) {
      const instance = await instanceFor(deps, route.targetNode, signal);
      await disableSourceDestCheck(deps, instance, signal);
      const table = await findRouteTable(deps, signal);
      const existing = (table.Routes ?? []).find((r) => destinationOf(r) === route.destinationCIDR);
      if (existing?.InstanceId === instance.id && existing.State !== "blackhole") return;
      if (existing) {
        const replaceable = existing.State === "blackhole" || (await targetGone(deps, existing, signal));
        if (!replaceable)
          throw new Error(
            `route table ${table.RouteTableId} already routes ${route.destinationCIDR} to ${existing.InstanceId ?? existing.GatewayId ?? "another target"}`,
          );
        deps.logger.info(`replacing blackholed route ${route.destinationCIDR} in ${table.RouteTableId}`);
        await deleteDestination(table.RouteTableId!, route.destinationCIDR, signal);
      }
      await deps.api.ec2.createRoute(
        { RouteTableId: table.RouteTableId, InstanceId: instance.id, ...destinationInput(route.destinationCIDR) },
        signal,
      );
    },

    async deleteRoute(_clusterName, route, signal) {
      const table = await findRouteTable(deps, signal);
      await deleteDestination(table.RouteTableId!, route.destinationCIDR, signal);
    },
  };
}
