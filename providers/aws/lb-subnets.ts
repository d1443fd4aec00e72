/**
 * Subnets for an ELB (upstream `findELBSubnets`): the `-subnets` annotation (IDs or Name tags, of the VPC) when given;
 * else the VPC's subnets that are tagged for this cluster or for no cluster, public ones only for an
 * internet-facing ELB (public: its route table, or the VPC's main table, routes to an internet gateway),
 * one per zone, preferring the role tag (`kubernetes.io/role/elb` / `internal-elb`), then the cluster
 * tag, then the lowest ID, leaving out zones whose type is not `availability-zone` (Local Zones, Wavelength
 * Zones: ELBs and NLBs cannot use them); else the configured `SubnetID`. Annotated subnets are used as named.
 */
import type { RouteTable, Subnet } from "@aws-sdk/client-ec2";
import type { AwsApi } from "./api.ts";
import { REGULAR_ZONE_TYPE, type ZoneCache } from "./zones.ts";
import { clusterTagKey, tagMap, taggedForCluster, taggedForOtherCluster, type ClusterTags } from "./tags.ts";

export interface SubnetQuery {
  readonly vpc: string;
  readonly internal: boolean;
  readonly annotated: readonly string[];
  readonly fallback: string;
}

/** The annotated subnets, by ID or Name tag, of the load balancer's VPC alone (a same-named one elsewhere is not). */
async function annotatedSubnets(
  api: AwsApi,
  refs: readonly string[],
  vpc: string,
  signal?: AbortSignal,
): Promise<string[]> {
  const ids = refs.filter((r) => r.startsWith("subnet-"));
  const names = refs.filter((r) => !r.startsWith("subnet-"));
  const inVpc = vpc ? [{ Name: "vpc-id", Values: [vpc] }] : [];
  const found: Subnet[] = [];
  const describe = async (name: string, values: string[]): Promise<Subnet[]> =>
    (await api.ec2.describeSubnets({ Filters: [{ Name: name, Values: values }, ...inVpc] }, signal)).Subnets ?? [];
  if (ids.length > 0) found.push(...(await describe("subnet-id", ids)));
  if (names.length > 0) found.push(...(await describe("tag:Name", names)));
  const missing = refs.filter((r) => !found.some((s) => s.SubnetId === r || tagMap(s.Tags).Name === r));
  if (missing.length > 0)
    throw new Error(
      `annotation service.beta.kubernetes.io/aws-load-balancer-subnets: invalid value: no subnet ${missing.join(", ")}`,
    );
  return [...new Set(found.map((s) => s.SubnetId!))];
}

/** Subnet ID → does its route table (explicit, else main) route to an internet gateway. */
export function publicSubnets(tables: readonly RouteTable[]): { explicit: Map<string, boolean>; main: boolean } {
  const hasIgw = (t: RouteTable): boolean => (t.Routes ?? []).some((r) => r.GatewayId?.startsWith("igw") === true);
  const explicit = new Map<string, boolean>();
  let main = false;
  for (const t of tables) {
    for (const a of t.Associations ?? []) {
      if (a.SubnetId) explicit.set(a.SubnetId, hasIgw(t));
      if (a.Main) main = hasIgw(t);
    }
  }
  return { explicit, main };
}

/** Sort key: role tag first, then cluster tag, then subnet ID. */
function rank(s: Subnet, roleTag: string, cluster: ClusterTags): string {
  const tags = tagMap(s.Tags);
  return `${roleTag in tags ? 0 : 1}${clusterTagKey(cluster.clusterID) in tags ? 0 : 1}${s.SubnetId}`;
}

/** The chosen subnet per zone, from a VPC's subnets and route tables. Pure. */
export function chooseSubnets(
  subnets: readonly Subnet[],
  tables: readonly RouteTable[],
  internal: boolean,
  cluster: ClusterTags,
): string[] {
  const routing = publicSubnets(tables);
  const roleTag = internal ? "kubernetes.io/role/internal-elb" : "kubernetes.io/role/elb";
  const best = new Map<string, Subnet>();
  const usable = (s: Subnet): boolean => {
    const tags = tagMap(s.Tags);
    if (!taggedForCluster(tags, cluster) && taggedForOtherCluster(tags, cluster)) return false;
    return internal || (routing.explicit.get(s.SubnetId!) ?? routing.main);
  };
  for (const s of subnets.filter(usable)) {
    const zone = s.AvailabilityZone ?? "";
    const current = best.get(zone);
    if (!current || rank(s, roleTag, cluster) < rank(current, roleTag, cluster)) best.set(zone, s);
  }
  return [...best.values()].map((s) => s.SubnetId!).sort();
}

/** The subnets whose zone is an ordinary availability zone, or one AWS did not describe (upstream keeps those). */
async function inRegularZones(zones: ZoneCache, subnets: readonly Subnet[], signal?: AbortSignal): Promise<Subnet[]> {
  const types = await zones.zoneTypes([...new Set(subnets.map((s) => s.AvailabilityZone ?? ""))], signal);
  return subnets.filter((s) => (types.get(s.AvailabilityZone ?? "") ?? REGULAR_ZONE_TYPE) === REGULAR_ZONE_TYPE);
}

export async function findSubnets(
  { api, zones, cluster }: { api: AwsApi; zones: ZoneCache; cluster: ClusterTags },
  query: SubnetQuery,
  signal?: AbortSignal,
): Promise<string[]> {
  if (query.annotated.length > 0) return annotatedSubnets(api, query.annotated, query.vpc, signal);
  const vpcFilter = [{ Name: "vpc-id", Values: [query.vpc] }];
  const [subnets, tables] = await Promise.all([
    api.ec2.describeSubnets({ Filters: vpcFilter }, signal),
    api.ec2.describeRouteTables({ Filters: vpcFilter }, signal),
  ]);
  const regular = await inRegularZones(zones, subnets.Subnets ?? [], signal);
  const chosen = chooseSubnets(regular, tables.RouteTables ?? [], query.internal, cluster);
  if (chosen.length > 0) return chosen;
  if (query.fallback !== "") return [query.fallback];
  const kind = query.internal ? "internal" : "internet-facing (routed to an internet gateway)";
  throw new Error(
    `no ${kind} subnet in ${query.vpc} is usable for the ELB: tag one with kubernetes.io/cluster/${cluster.clusterID}, or set the aws-load-balancer-subnets annotation or SubnetID`,
  );
}
