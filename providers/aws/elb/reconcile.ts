/**
 * Brings one classic ELB to its wanted shape: created when missing; otherwise listeners, subnets,
 * security groups and tags are changed in place (upstream never removes tags it did not add, nor does
 * this). The scheme cannot change on a live ELB, so flipping `-internal` is refused. Health check and
 * attributes are written only when they differ.
 */
import type { Listener, LoadBalancerDescription } from "@aws-sdk/client-elastic-load-balancing";
import type { Service } from "../../../src/kube/objects.ts";
import type { Logger } from "../../../src/log/logger.ts";
import type { AwsApi } from "../api.ts";
import { errorCode } from "../call.ts";
import { syncPolicies } from "./policies.ts";
import { PREFIX, type LbOptions } from "../lb-annotations.ts";
import {
  attributesDiffer,
  desiredAttributes,
  desiredHealthCheck,
  healthCheckDiffers,
  listenerChanges,
  type SharedProbe,
} from "./plan.ts";
import { serviceName } from "../lb-names.ts";
import { ownedTags, tagMap, type ClusterTags } from "../tags.ts";

export interface ReconcileDeps {
  readonly api: AwsApi;
  readonly cluster: ClusterTags;
  readonly probe: SharedProbe;
  readonly logger: Logger;
}

export interface ElbTarget {
  readonly name: string;
  readonly service: Service;
  readonly options: LbOptions;
  readonly listeners: readonly Listener[];
  readonly subnets: readonly string[];
  readonly securityGroups: readonly string[];
}

const NOT_FOUND = new Set(["AccessPointNotFoundException", "LoadBalancerNotFound"]);

export async function describeElb(
  api: AwsApi,
  name: string,
  signal?: AbortSignal,
): Promise<LoadBalancerDescription | undefined> {
  try {
    return (await api.elb.describeLoadBalancers({ LoadBalancerNames: [name] }, signal)).LoadBalancerDescriptions?.[0];
  } catch (error) {
    if (NOT_FOUND.has(errorCode(error) ?? "")) return undefined;
    throw error;
  }
}

const difference = (a: readonly string[], b: readonly string[]): string[] => a.filter((x) => !b.includes(x));

async function create(deps: ReconcileDeps, t: ElbTarget, signal?: AbortSignal): Promise<void> {
  deps.logger.info(`creating ELB ${t.name} for ${serviceName(t.service)}`, {
    subnets: t.subnets.join(","),
    securityGroups: t.securityGroups.join(","),
  });
  await deps.api.elb.createLoadBalancer(
    {
      LoadBalancerName: t.name,
      Listeners: [...t.listeners],
      Subnets: [...t.subnets],
      SecurityGroups: [...t.securityGroups],
      ...(t.options.internal ? { Scheme: "internal" } : {}),
      Tags: ownedTags(deps.cluster, serviceName(t.service), t.options.extraTags),
    },
    signal,
  );
}

/**
 * A listener that changes is deleted, then created anew (ELB listeners cannot be modified). If creating
 * fails (a certificate AWS does not know, throttling), the deleted listeners whose ports are free again are
 * put back before the error is returned, so a bad change leaves the ELB serving as before.
 */
async function syncListeners(
  deps: ReconcileDeps,
  t: ElbTarget,
  lb: LoadBalancerDescription,
  signal?: AbortSignal,
): Promise<void> {
  const { remove, add } = listenerChanges(lb.ListenerDescriptions ?? [], t.listeners);
  // One port per call: listener changes are rare, so the extra calls cost little, and a failure names the
  // one listener it left behind.
  for (const port of remove)
    await deps.api.elb.deleteLoadBalancerListeners({ LoadBalancerName: t.name, LoadBalancerPorts: [port] }, signal);
  if (add.length === 0) return;
  try {
    await deps.api.elb.createLoadBalancerListeners({ LoadBalancerName: t.name, Listeners: add }, signal);
  } catch (error) {
    const removed = (lb.ListenerDescriptions ?? []).flatMap((d) =>
      d.Listener && remove.includes(d.Listener.LoadBalancerPort!) ? [d.Listener] : [],
    );
    await restoreListeners(deps, t.name, removed, signal).catch((e: unknown) =>
      deps.logger.warn(`could not restore the listeners of ELB ${t.name}`, { error: String(e) }),
    );
    throw error;
  }
}

async function restoreListeners(
  deps: ReconcileDeps,
  name: string,
  removed: readonly Listener[],
  signal?: AbortSignal,
): Promise<void> {
  const now = await describeElb(deps.api, name, signal);
  const taken = new Set((now?.ListenerDescriptions ?? []).map((d) => d.Listener?.LoadBalancerPort));
  const back = removed.filter((l) => !taken.has(l.LoadBalancerPort));
  if (back.length > 0)
    await deps.api.elb.createLoadBalancerListeners({ LoadBalancerName: name, Listeners: back }, signal);
}

/** Attach before detach: an ELB must keep at least one subnet. */
async function syncSubnets(
  deps: ReconcileDeps,
  t: ElbTarget,
  lb: LoadBalancerDescription,
  signal?: AbortSignal,
): Promise<void> {
  const have = lb.Subnets ?? [];
  const attach = difference(t.subnets, have);
  const detach = difference(have, t.subnets);
  if (attach.length > 0)
    await deps.api.elb.attachLoadBalancerToSubnets({ LoadBalancerName: t.name, Subnets: attach }, signal);
  if (detach.length > 0)
    await deps.api.elb.detachLoadBalancerFromSubnets({ LoadBalancerName: t.name, Subnets: detach }, signal);
}

async function syncTags(deps: ReconcileDeps, t: ElbTarget, signal?: AbortSignal): Promise<void> {
  const described = await deps.api.elb.describeTags({ LoadBalancerNames: [t.name] }, signal);
  const have = tagMap(described.TagDescriptions?.[0]?.Tags);
  const missing = ownedTags(deps.cluster, serviceName(t.service), t.options.extraTags).filter(
    (tag) => have[tag.Key] !== tag.Value,
  );
  if (missing.length > 0) await deps.api.elb.addTags({ LoadBalancerNames: [t.name], Tags: missing }, signal);
}

async function update(
  deps: ReconcileDeps,
  t: ElbTarget,
  lb: LoadBalancerDescription,
  signal?: AbortSignal,
): Promise<void> {
  const internal = lb.Scheme === "internal";
  if (internal !== t.options.internal) {
    throw new Error(
      `annotation ${PREFIX}internal: cannot change ELB ${t.name} from ${lb.Scheme} to ${t.options.internal ? "internal" : "internet-facing"}; recreate the Service`,
    );
  }
  await syncListeners(deps, t, lb, signal);
  await syncSubnets(deps, t, lb, signal);
  const groups = lb.SecurityGroups ?? [];
  if (groups.length !== t.securityGroups.length || difference(t.securityGroups, groups).length > 0) {
    await deps.api.elb.applySecurityGroupsToLoadBalancer(
      { LoadBalancerName: t.name, SecurityGroups: [...t.securityGroups] },
      signal,
    );
  }
  await syncTags(deps, t, signal);
}

async function syncSettings(
  deps: ReconcileDeps,
  t: ElbTarget,
  lb: LoadBalancerDescription,
  signal?: AbortSignal,
): Promise<void> {
  const state = { listeners: lb.ListenerDescriptions ?? [], backends: lb.BackendServerDescriptions ?? [] };
  await syncPolicies(deps.api, { name: t.name, state, listeners: t.listeners, options: t.options.listener }, signal);
  const healthCheck = desiredHealthCheck(t.service, t.listeners, t.options, deps.probe);
  if (healthCheckDiffers(lb.HealthCheck, healthCheck))
    await deps.api.elb.configureHealthCheck({ LoadBalancerName: t.name, HealthCheck: healthCheck }, signal);
  const attributes = desiredAttributes(t.options);
  const current = await deps.api.elb.describeLoadBalancerAttributes({ LoadBalancerName: t.name }, signal);
  if (attributesDiffer(current.LoadBalancerAttributes, attributes)) {
    await deps.api.elb.modifyLoadBalancerAttributes(
      { LoadBalancerName: t.name, LoadBalancerAttributes: attributes },
      signal,
    );
  }
}

/** Creates or updates the ELB; resolves its description after the changes. */
export async function reconcileElb(
  deps: ReconcileDeps,
  t: ElbTarget,
  existing: LoadBalancerDescription | undefined,
  signal?: AbortSignal,
): Promise<LoadBalancerDescription> {
  if (existing) await update(deps, t, existing, signal);
  else await create(deps, t, signal);
  const lb = await describeElb(deps.api, t.name, signal);
  if (!lb) throw new Error(`ELB ${t.name} vanished while being set up`);
  await syncSettings(deps, t, lb, signal);
  return lb;
}
