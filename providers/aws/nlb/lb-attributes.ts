/**
 * The NLB's own attributes, as upstream's `reconcileLBAttributes`: cross-zone from
 * `cross-zone-load-balancing-enabled` and access logs from `access-log-enabled`,
 * `-s3-bucket-name` and `-s3-bucket-prefix` (the emit interval is a classic-ELB setting). Both default to
 * off, so dropping an annotation turns the feature off again. The bucket and prefix are written only
 * while access logs are on: AWS refuses an empty bucket, so turning logs off leaves them as they were.
 */
import type { LoadBalancerAttribute } from "@aws-sdk/client-elastic-load-balancing-v2";
import type { AwsApi } from "../api.ts";
import type { LbOptions } from "../lb-annotations.ts";

export const CROSS_ZONE = "load_balancing.cross_zone.enabled";
export const ACCESS_LOGS = "access_logs.s3.enabled";
export const ACCESS_LOGS_BUCKET = "access_logs.s3.bucket";
export const ACCESS_LOGS_PREFIX = "access_logs.s3.prefix";

/** The attributes the Service asks for, every key upstream reconciles. */
export function desiredLbAttributes(options: Pick<LbOptions, "crossZone" | "accessLog">): Record<string, string> {
  const logs = options.accessLog.enabled === true;
  return {
    [CROSS_ZONE]: String(options.crossZone === true),
    [ACCESS_LOGS]: String(logs),
    ...(logs
      ? { [ACCESS_LOGS_BUCKET]: options.accessLog.bucket ?? "", [ACCESS_LOGS_PREFIX]: options.accessLog.prefix ?? "" }
      : {}),
  };
}

/** The attributes to write: each wanted one whose current value differs (a missing one counts as ""). */
export function lbAttributeChanges(
  current: readonly LoadBalancerAttribute[],
  wanted: Readonly<Record<string, string>>,
): LoadBalancerAttribute[] {
  const have = new Map(current.map((a) => [a.Key ?? "", a.Value ?? ""]));
  return Object.entries(wanted)
    .filter(([key, value]) => (have.get(key) ?? "") !== value)
    .map(([Key, Value]) => ({ Key, Value }));
}

export async function syncLbAttributes(
  api: AwsApi,
  lbArn: string,
  options: Pick<LbOptions, "crossZone" | "accessLog">,
  signal?: AbortSignal,
): Promise<void> {
  const current = (await api.elbv2.describeLoadBalancerAttributes({ LoadBalancerArn: lbArn }, signal)).Attributes ?? [];
  const changes = lbAttributeChanges(current, desiredLbAttributes(options));
  if (changes.length > 0)
    await api.elbv2.modifyLoadBalancerAttributes({ LoadBalancerArn: lbArn, Attributes: changes }, signal);
}
