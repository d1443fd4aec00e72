/**
 * An NLB's target groups, one per Service port: created with the cluster's tags, their health check and
 * attributes kept as the annotations say, and the running backends registered on the NodePort.
 */
import type { Tag, TargetGroup } from "@aws-sdk/client-elastic-load-balancing-v2";
import type { AwsApi } from "../api.ts";
import { errorCode } from "../call.ts";
import type { Ec2Instance } from "../ec2-instance.ts";
import type { NlbHealthCheck, TargetGroupSpec } from "./plan.ts";
import { targetGroupAttributeChanges } from "./target-group-attributes.ts";

/** Where a new target group goes and what it is tagged with. */
export interface TargetGroupPlace {
  readonly vpc: string;
  readonly tags: readonly Tag[];
}

/** The target group `spec` names, created or with its health check brought in line. */
export async function ensureTargetGroup(
  api: AwsApi,
  spec: TargetGroupSpec,
  place: TargetGroupPlace,
  signal?: AbortSignal,
): Promise<{ arn: string; created: boolean }> {
  const found = await api.elbv2.describeTargetGroups({ Names: [spec.name] }, signal).catch((error: unknown) => {
    if (errorCode(error) === "TargetGroupNotFoundException") return { TargetGroups: [] };
    throw error;
  });
  const existing = found.TargetGroups?.[0];
  const settings = healthCheckSettings(spec.healthCheck);
  if (existing?.TargetGroupArn) {
    if (healthCheckChanged(existing, settings))
      await api.elbv2.modifyTargetGroup({ TargetGroupArn: existing.TargetGroupArn, ...settings }, signal);
    return { arn: existing.TargetGroupArn, created: false };
  }
  const created = await api.elbv2.createTargetGroup(
    {
      Name: spec.name,
      Protocol: spec.protocol,
      Port: spec.nodePort,
      VpcId: place.vpc,
      TargetType: "instance",
      ...settings,
      Tags: [...place.tags],
    },
    signal,
  );
  return { arn: created.TargetGroups![0]!.TargetGroupArn!, created: true };
}

/** The target group attributes the annotations ask for; only the differing ones are written. */
export async function syncAttributes(
  api: AwsApi,
  arn: string,
  wanted: Readonly<Record<string, string>>,
  signal?: AbortSignal,
): Promise<void> {
  const current = (await api.elbv2.describeTargetGroupAttributes({ TargetGroupArn: arn }, signal)).Attributes ?? [];
  const changes = targetGroupAttributeChanges(current, wanted);
  if (changes.length > 0)
    await api.elbv2.modifyTargetGroupAttributes({ TargetGroupArn: arn, Attributes: changes }, signal);
}

type HealthCheckSettings = Pick<
  TargetGroup,
  | "HealthCheckProtocol"
  | "HealthCheckPort"
  | "HealthCheckPath"
  | "HealthCheckIntervalSeconds"
  | "HealthyThresholdCount"
  | "UnhealthyThresholdCount"
  | "HealthCheckTimeoutSeconds"
>;

function healthCheckSettings(hc: NlbHealthCheck): HealthCheckSettings {
  return {
    HealthCheckProtocol: hc.protocol as "TCP",
    HealthCheckPort: hc.port,
    ...(hc.path ? { HealthCheckPath: hc.path } : {}),
    HealthCheckIntervalSeconds: hc.interval,
    HealthyThresholdCount: hc.healthy,
    UnhealthyThresholdCount: hc.unhealthy,
    ...(hc.timeout ? { HealthCheckTimeoutSeconds: hc.timeout } : {}),
  };
}

function healthCheckChanged(actual: TargetGroup, wanted: HealthCheckSettings): boolean {
  return (Object.keys(wanted) as (keyof HealthCheckSettings)[]).some((k) => actual[k] !== wanted[k]);
}

/** Registers the wanted instances on the NodePort and deregisters the rest. */
export async function syncTargets(
  api: AwsApi,
  group: { arn: string; spec: Pick<TargetGroupSpec, "nodePort"> },
  instances: readonly Ec2Instance[],
  signal?: AbortSignal,
): Promise<void> {
  const { arn: groupArn, spec } = group;
  const health = await api.elbv2.describeTargetHealth({ TargetGroupArn: groupArn }, signal);
  // Draining and not-registered entries are on their way out: not targets any more.
  const current = (health.TargetHealthDescriptions ?? []).filter(
    (d) => d.TargetHealth?.State !== "draining" && d.TargetHealth?.Reason !== "Target.NotRegistered",
  );
  const have = new Set(current.map((d) => d.Target?.Id ?? ""));
  const want = new Set(instances.map((i) => i.id));
  const add = [...want].filter((id) => !have.has(id)).map((Id) => ({ Id, Port: spec.nodePort }));
  const remove = [...have].filter((id) => id !== "" && !want.has(id)).map((Id) => ({ Id, Port: spec.nodePort }));
  if (add.length > 0) await api.elbv2.registerTargets({ TargetGroupArn: groupArn, Targets: add }, signal);
  if (remove.length > 0) await api.elbv2.deregisterTargets({ TargetGroupArn: groupArn, Targets: remove }, signal);
}
