/**
 * One service sync (upstream `syncService` → `syncLoadBalancerIfNeeded`): read the Service from the
 * cache, decide with `planServiceSync`, then make the fewest cloud calls and writes. Every write goes to
 * `services/status`, so the RBAC needs only get/list/watch on Services and patch on their status.
 *
 * Leak rules: the finalizer is added before the first EnsureLoadBalancer and removed only after
 * EnsureLoadBalancerDeleted succeeded, so an LB can exist only while its Service (or the finalizer on it)
 * does; a manager killed at any point redoes the unfinished step when it starts again.
 */
import { ImplementedElsewhereError } from "../../cloud/errors.ts";
import type { LoadBalancer } from "../../cloud/provider.ts";
import { SERVICES, type KubeApi } from "../../kube/api.ts";
import type { EventRecorder } from "../../kube/events.ts";
import type { Lister } from "../../kube/informer.ts";
import type { LoadBalancerStatus, Node, Service } from "../../kube/objects.ts";
import { trimService } from "../../kube/transforms.ts";
import { isNotFound } from "../../kube/transport.ts";
import { errorMessage } from "../../kube/worker.ts";
import type { Logger } from "../../log/logger.ts";
import type { ServiceCache } from "./cache.ts";
import { finalizerPatch, goneAfter, planServiceSync, statusPatch } from "./plan.ts";
import { hasCleanupFinalizer, ingressEqual } from "./predicates.ts";

export interface ServiceSyncDeps {
  readonly api: KubeApi;
  readonly services: Lister<Service>;
  /** The Nodes that may back load balancers (the same array until a Node changes: node-set.ts). */
  readonly lbNodes: () => readonly Node[];
  readonly balancer: LoadBalancer;
  readonly clusterName: string;
  /** `--load-balancer-class`; empty: only unclassed Services. */
  readonly servedClass: string;
  readonly recorder: EventRecorder;
  readonly cache: ServiceCache;
  readonly logger: Logger;
}

/** Syncs one `namespace/name` key. Throws to be retried; the caller holds the key's lock. */
export async function syncService(deps: ServiceSyncDeps, key: string): Promise<void> {
  const current = deps.services.get(key);
  const plan = planServiceSync(current, deps.cache.get(key), deps.servedClass);
  if (plan.deleteFirst) await deleteGoneLoadBalancer(deps, key, plan.deleteFirst);
  if (plan.action === "forget") deps.cache.delete(key);
  if (plan.action === "cleanupGone") await deleteGoneLoadBalancer(deps, key, deps.cache.get(key) as Service);
  if (!current || (plan.action !== "ensure" && plan.action !== "cleanup")) return;
  const service = structuredClone(current);
  deps.cache.set(key, service);
  try {
    if (plan.action === "ensure") await ensureService(deps, key, service);
    else await cleanupService(deps, key, service);
  } catch (error) {
    deps.recorder.event(
      service,
      "Warning",
      "SyncLoadBalancerFailed",
      `Error syncing load balancer: ${errorMessage(error)}`,
    );
    throw error;
  }
}

async function ensureService(deps: ServiceSyncDeps, key: string, service: Service): Promise<void> {
  deps.logger.debug(`ensuring load balancer for service ${key}`);
  deps.recorder.event(service, "Normal", "EnsuringLoadBalancer", "Ensuring load balancer");
  const latest = (await setFinalizer(deps, service, true).catch((error: unknown) => {
    throw new Error(`failed to add load balancer cleanup finalizer: ${errorMessage(error)}`, { cause: error });
  })) as Service;
  const nodes = deps.lbNodes();
  if (nodes.length === 0)
    deps.recorder.event(service, "Warning", "UnAvailableLoadBalancer", "There are no available nodes for LoadBalancer");
  let status: LoadBalancerStatus | undefined;
  try {
    const ensured = await deps.balancer.ensureLoadBalancer(deps.clusterName, latest, nodes);
    for (const warning of ensured?.warnings ?? [])
      deps.recorder.event(service, "Warning", warning.reason, warning.message);
    status = ensured?.status;
  } catch (error) {
    if (!(error instanceof ImplementedElsewhereError))
      throw new Error(`failed to ensure load balancer: ${errorMessage(error)}`, { cause: error });
    deps.logger.debug(`load balancer for service ${key} is implemented elsewhere`);
    deps.cache.recordNodes(key, nodes);
    return;
  }
  if (!status) throw new Error("service status returned by EnsureLoadBalancer is nil"); // as upstream: no prefix
  deps.cache.recordNodes(key, nodes);
  deps.recorder.event(service, "Normal", "EnsuredLoadBalancer", "Ensured load balancer");
  await writeStatus(deps, latest, status);
}

/**
 * Upstream calls EnsureLoadBalancerDeleted only when GetLoadBalancer reports the LB. We also call it
 * whenever our finalizer is on: a delete cut short (manager killed, cloud error) can leave parts of an
 * LB that GetLoadBalancer no longer reports, and the call is idempotent by contract.
 */
async function cleanupService(deps: ServiceSyncDeps, key: string, service: Service): Promise<void> {
  const { exists } = await deps.balancer.getLoadBalancer(deps.clusterName, service).catch((error: unknown) => {
    throw new Error(`failed to check if load balancer exists before cleanup: ${errorMessage(error)}`, { cause: error });
  });
  if (exists || hasCleanupFinalizer(service)) {
    deps.logger.info(`deleting load balancer for service ${key}`);
    if (exists) deps.recorder.event(service, "Normal", "DeletingLoadBalancer", "Deleting load balancer");
    await ensureDeleted(deps, service).catch((error: unknown) => {
      throw new Error(`failed to delete load balancer: ${errorMessage(error)}`, { cause: error });
    });
  }
  const latest = await setFinalizer(deps, service, false).catch((error: unknown) => {
    throw new Error(`failed to remove load balancer cleanup finalizer: ${errorMessage(error)}`, { cause: error });
  });
  deps.recorder.event(service, "Normal", "DeletedLoadBalancer", "Deleted load balancer");
  if (latest && !goneAfter(latest)) await writeStatus(deps, latest, {});
  deps.cache.delete(key);
}

/** The Service vanished without our finalizer (or was recreated): delete the LB of its last copy. */
async function deleteGoneLoadBalancer(deps: ServiceSyncDeps, key: string, service: Service): Promise<void> {
  deps.logger.info(`service ${key} has been deleted, cleaning up its load balancer`);
  deps.recorder.event(service, "Normal", "DeletingLoadBalancer", "Deleting load balancer");
  try {
    await ensureDeleted(deps, service);
  } catch (error) {
    deps.recorder.event(
      service,
      "Warning",
      "DeleteLoadBalancerFailed",
      `Error deleting load balancer: ${errorMessage(error)}`,
    );
    throw error;
  }
  deps.recorder.event(service, "Normal", "DeletedLoadBalancer", "Deleted load balancer");
  deps.cache.delete(key);
}

async function ensureDeleted(deps: ServiceSyncDeps, service: Service): Promise<void> {
  try {
    await deps.balancer.ensureLoadBalancerDeleted(deps.clusterName, service);
  } catch (error) {
    if (!(error instanceof ImplementedElsewhereError)) throw error;
  }
}

/**
 * Adds or removes our finalizer with a patch on `services/status`. Returns the Service as written, or
 * undefined when it is gone (only possible when removing: then there is nothing left to do).
 */
async function setFinalizer(deps: ServiceSyncDeps, service: Service, present: boolean): Promise<Service | undefined> {
  const patch = finalizerPatch(service, present);
  if (!patch) return service;
  const { name, namespace } = service.metadata;
  try {
    return trimService(
      await deps.api.patch<Service>(SERVICES, name, patch, { namespace, subresource: "status", type: "strategic" }),
    );
  } catch (error) {
    if (!present && isNotFound(error)) return undefined;
    throw error;
  }
}

/** Writes `status.loadBalancer` only when the ingress changed; a Service gone meanwhile is fine. */
async function writeStatus(deps: ServiceSyncDeps, service: Service, status: LoadBalancerStatus): Promise<void> {
  if (ingressEqual(service.status?.loadBalancer?.ingress, status.ingress)) return;
  const { name, namespace } = service.metadata;
  try {
    const target = { namespace, subresource: "status", type: "strategic" } as const;
    await deps.api.patchVersion(SERVICES, name, statusPatch(status), target);
  } catch (error) {
    if (!isNotFound(error))
      throw new Error(`failed to update load balancer status: ${errorMessage(error)}`, { cause: error });
  }
}
