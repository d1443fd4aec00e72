/**
 * The target groups of a Service being deleted, found by name and tags rather than through its NLB:
 * those left when DeleteTargetGroup failed (or the process died) after the NLB went, or after a listener
 * moved to a replacement group. Named for the Service (`targetGroupPrefix`: `k8s-<ns[:8]>-<name[:8]>-` of
 * the namespace and name without their non-alphanumerics, which other Services' names may share) and
 * tagged for this cluster and for this Service (`kubernetes.io/service-name`). Groups made by earlier
 * versions of this provider, whose names kept the non-alphanumerics (`earlierPrefix`), are found too.
 * One still in use is refused by AWS (ResourceInUse), and the deletion is retried.
 */
import type { TagDescription } from "@aws-sdk/client-elastic-load-balancing-v2";
import type { AwsApi } from "../api.ts";
import { errorCode } from "../call.ts";
import { serviceName } from "../lb-names.ts";
import { SERVICE_NAME_TAG, tagMap, taggedForCluster, type ClusterTags } from "../tags.ts";
import type { Service } from "../../../src/kube/objects.ts";
import { targetGroupPrefix } from "./plan.ts";

/** DescribeTags takes at most 20 ARNs. */
const TAGS_PER_CALL = 20;

/** How earlier versions began a Service's target group names: `k8s-<ns[:8]>-<name[:8]>-`, as written. */
export function earlierPrefix(service: Service): string {
  const { namespace = "", name } = service.metadata;
  return `k8s-${namespace.slice(0, 8)}-${name.slice(0, 8)}-`;
}

async function named(api: AwsApi, prefixes: readonly string[], signal?: AbortSignal): Promise<string[]> {
  const found: string[] = [];
  let marker: string | undefined;
  do {
    const page = await api.elbv2.describeTargetGroups({ PageSize: 400, Marker: marker }, signal);
    for (const group of page.TargetGroups ?? [])
      if (group.TargetGroupArn && prefixes.some((p) => group.TargetGroupName?.startsWith(p)))
        found.push(group.TargetGroupArn);
    marker = page.NextMarker;
  } while (marker);
  return found;
}

/**
 * The tags of `arns`. DescribeTags fails the whole call when one of them is gone (deleted since the
 * listing, as when two Services of one name prefix go together): the ARNs are then described one by one
 * and the missing ones dropped.
 */
async function tagsOf(api: AwsApi, arns: string[], signal?: AbortSignal): Promise<TagDescription[]> {
  try {
    return (await api.elbv2.describeTags({ ResourceArns: arns }, signal)).TagDescriptions ?? [];
  } catch (error) {
    if (errorCode(error) !== "TargetGroupNotFoundException") throw error;
  }
  if (arns.length === 1) return [];
  const found: TagDescription[] = [];
  for (const arn of arns) found.push(...(await tagsOf(api, [arn], signal)));
  return found;
}

/** Deletes the target groups left of `service`; resolves with their ARNs. */
export async function deleteStrayGroups(
  api: AwsApi,
  cluster: ClusterTags,
  service: Service,
  signal?: AbortSignal,
): Promise<string[]> {
  const candidates = await named(api, [targetGroupPrefix(service), earlierPrefix(service)], signal);
  const owner = serviceName(service);
  const strays: string[] = [];
  for (let i = 0; i < candidates.length; i += TAGS_PER_CALL) {
    for (const described of await tagsOf(api, candidates.slice(i, i + TAGS_PER_CALL), signal)) {
      const tags = tagMap(described.Tags);
      if (taggedForCluster(tags, cluster) && tags[SERVICE_NAME_TAG] === owner) strays.push(described.ResourceArn!);
    }
  }
  for (const arn of strays) await api.elbv2.deleteTargetGroup({ TargetGroupArn: arn }, signal);
  return strays;
}
