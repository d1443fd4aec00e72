/**
 * What one service sync does, decided from the cached Service and the controller's memory of it, and
 * the patches it writes. Pure: `sync.ts` reads, calls these, and writes.
 */
import type { LoadBalancerStatus, Node, Service } from "../../kube/objects.ts";
import { FINALIZER_LB_CLEANUP } from "../../kube/well-known.ts";
import { hasCleanupFinalizer, needsCleanup, wantsLoadBalancer } from "./predicates.ts";

/**
 * - `ensure`: create or update the LB (finalizer first).
 * - `cleanup`: the Service exists but must lose its LB (being deleted, or no longer served).
 * - `cleanupGone`: the Service is gone from the cache; delete the LB of the last copy we saw.
 * - `forget`: nothing to do but drop our memory of the key.
 * - `none`: nothing to do.
 */
export type ServiceAction = "ensure" | "cleanup" | "cleanupGone" | "forget" | "none";

export interface ServiceSyncPlan {
  readonly action: ServiceAction;
  /**
   * The last copy of an earlier Service of the same name, deleted and recreated without our finalizer
   * in between: its LB is deleted before anything else (upstream compares UIDs the same way).
   */
  readonly deleteFirst?: Service;
}

/** Whether a remembered copy still stands for an LB that may exist in the cloud. */
export function mayOwnLoadBalancer(service: Service, servedClass: string): boolean {
  return wantsLoadBalancer(service, servedClass) || hasCleanupFinalizer(service);
}

export function planServiceSync(
  current: Service | undefined,
  remembered: Service | undefined,
  servedClass: string,
): ServiceSyncPlan {
  if (!current) {
    if (!remembered) return { action: "none" };
    return { action: mayOwnLoadBalancer(remembered, servedClass) ? "cleanupGone" : "forget" };
  }
  const stale =
    remembered && remembered.metadata.uid !== current.metadata.uid && mayOwnLoadBalancer(remembered, servedClass)
      ? remembered
      : undefined;
  const action = !wantsLoadBalancer(current, servedClass) || needsCleanup(current) ? "cleanup" : "ensure";
  return stale ? { action, deleteFirst: stale } : { action };
}

/**
 * The strategic-merge patch that adds or removes our finalizer, or undefined when the Service already
 * is so. `metadata.finalizers` merges element-wise (patchStrategy merge), so the patch touches only our
 * entry and never races with another client's finalizer.
 */
export function finalizerPatch(service: Service, present: boolean): object | undefined {
  const has = service.metadata.finalizers?.includes(FINALIZER_LB_CLEANUP) ?? false;
  if (has === present) return undefined;
  return present
    ? { metadata: { finalizers: [FINALIZER_LB_CLEANUP] } }
    : { metadata: { "$deleteFromPrimitiveList/finalizers": [FINALIZER_LB_CLEANUP] } };
}

/** `ingress` is an atomic list: the patch replaces it, and null clears it. */
export function statusPatch(status: LoadBalancerStatus): object {
  const ingress = status.ingress && status.ingress.length > 0 ? status.ingress : null;
  return { status: { loadBalancer: { ingress } } };
}

/** After removing the last finalizer of a Service being deleted, the object is gone: no status to write. */
export function goneAfter(service: Service): boolean {
  return service.metadata.deletionTimestamp !== undefined && (service.metadata.finalizers ?? []).length === 0;
}

const MAX_LOGGED_NODES = 20;

/** Upstream's UpdateLoadBalancerFailed text (`loggableNodeNames`): the first 20 names sorted, then `<N more>`. */
export function updateFailedMessage(nodes: readonly Node[], error: string): string {
  const names = nodes.slice(0, MAX_LOGGED_NODES).map((n) => n.metadata.name);
  names.sort();
  if (nodes.length > MAX_LOGGED_NODES) names.push(`<${nodes.length - MAX_LOGGED_NODES} more>`);
  return `Error updating load balancer with new hosts [${names.join(" ")}] [node names limited, total number of nodes: ${nodes.length}], error: ${error}`;
}
