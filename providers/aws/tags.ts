/**
 * Cluster ownership by tags, as upstream: a resource belongs to cluster `<id>` when it carries
 * `kubernetes.io/cluster/<id>` (any value: `owned` or `shared`) or the legacy `KubernetesCluster=<id>`
 * (upstream's `hasClusterTag` reads it whatever the configuration). Resources this provider creates are
 * tagged `owned`, and `KubernetesCluster=<id>` too with the legacy `KubernetesClusterTag` configured.
 */
export interface ClusterTags {
  readonly clusterID: string;
  readonly legacy: boolean;
}

export interface Tag {
  readonly Key?: string;
  readonly Value?: string;
}

export const LEGACY_CLUSTER_TAG = "KubernetesCluster";
export const SERVICE_NAME_TAG = "kubernetes.io/service-name";

export function clusterTagKey(clusterID: string): string {
  return `kubernetes.io/cluster/${clusterID}`;
}

export function tagMap(tags: readonly Tag[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const t of tags ?? []) if (t.Key !== undefined) out[t.Key] = t.Value ?? "";
  return out;
}

export function taggedForCluster(tags: Readonly<Record<string, string>>, cluster: ClusterTags): boolean {
  if (clusterTagKey(cluster.clusterID) in tags) return true;
  return cluster.clusterID !== "" && tags[LEGACY_CLUSTER_TAG] === cluster.clusterID;
}

/** True when some `kubernetes.io/cluster/*` tag names another cluster (the resource is not ours to use). */
export function taggedForOtherCluster(tags: Readonly<Record<string, string>>, cluster: ClusterTags): boolean {
  const mine = clusterTagKey(cluster.clusterID);
  return Object.keys(tags).some((k) => k.startsWith("kubernetes.io/cluster/") && k !== mine);
}

/** The tags of a resource this provider creates for `service` (`ns/name`). */
export function ownedTags(
  cluster: ClusterTags,
  service: string,
  extra: Readonly<Record<string, string>> = {},
): { Key: string; Value: string }[] {
  const tags: Record<string, string> = {
    ...extra,
    [clusterTagKey(cluster.clusterID)]: "owned",
    [SERVICE_NAME_TAG]: service,
  };
  if (cluster.legacy) tags[LEGACY_CLUSTER_TAG] = cluster.clusterID;
  return Object.entries(tags).map(([Key, Value]) => ({ Key, Value }));
}
