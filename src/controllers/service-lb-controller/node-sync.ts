/**
 * The node sync (upstream `syncNodes` / `nodeSyncService`): when the set of nodes that may back load
 * balancers changes, call UpdateLoadBalancer for every Service whose LB was built with another set.
 * Each Service is updated under its key's lock, so an Update never overlaps an Ensure or a Delete of the
 * same Service (kubernetes/kubernetes#100846); the Service is read again once the lock is held.
 */
import { ImplementedElsewhereError } from "../../cloud/errors.ts";
import type { Node, Service } from "../../kube/objects.ts";
import { errorMessage } from "../../kube/worker.ts";
import type { Metrics } from "../../metrics/metrics.ts";
import type { Clock } from "../../util/clock.ts";
import { forEachLimited, type KeyedLock } from "../../util/concurrency.ts";
import { updateFailedMessage } from "./plan.ts";
import { needsCleanup, wantsLoadBalancer } from "./predicates.ts";
import type { ServiceSyncDeps } from "./sync.ts";

export interface NodeSyncDeps extends ServiceSyncDeps {
  readonly lock: KeyedLock;
  readonly workers: number;
  readonly metrics: Metrics;
  readonly clock: Clock;
  /** Hands a Service whose Update failed back to the service queue for a full sync (Ensure). */
  readonly resync: (key: string) => void;
}

/**
 * One pass over every Service with a known node set. Never throws: failures go to the service queue.
 * Without such a Service the pass ends before listing Nodes: a burst of Node events (thousands of Nodes
 * being initialised) then costs nothing here.
 */
export async function syncNodes(deps: NodeSyncDeps): Promise<void> {
  const started = deps.clock.now();
  const keys = deps.cache.syncedKeys();
  // The node set is read for each Service once its lock is held (upstream re-lists per Service too): a
  // set read at the start of a long pass would undo, on Services updated late in it, an Ensure made
  // meanwhile with newer Nodes. It is cached per change of the Nodes, so a read costs nothing.
  if (keys.length > 0)
    await forEachLimited(keys, deps.workers, (key) =>
      deps.lock.withLock(key, () => updateHosts(deps, key, deps.lbNodes())),
    );
  deps.metrics.nodeSyncLatency.observe((deps.clock.now() - started) / 1000);
}

/**
 * The least time from the start of one node pass to the start of the next. Upstream starts a pass for
 * every change of the node set. In a burst (an autoscaler adding hundreds of Nodes, each changing the set
 * once it is initialised) passes then run back to back, each updating every load balancer again: with 10
 * load balancers and passes of 50 ms, 200 UpdateLoadBalancer calls a second, which is what a cloud's API
 * throttles. Paced, a pass waits out the rest of this interval and takes every change made meanwhile. A
 * change after a quiet spell is passed on at once, as upstream does (kube-proxy's
 * `--iptables-min-sync-period` is the same idea, with the same 1 s default).
 */
export const NODE_SYNC_MIN_INTERVAL_MS = 1000;

/**
 * `pass`, started at most once per `minIntervalMs`: a call soon after the previous start first sleeps out
 * the rest of the interval. Abort during that sleep ends the call without a pass.
 */
export function pacePasses(
  clock: Clock,
  minIntervalMs: number,
  pass: () => Promise<void>,
  signal: AbortSignal,
): () => Promise<void> {
  let lastStart = Number.NEGATIVE_INFINITY;
  return async () => {
    const wait = lastStart + minIntervalMs - clock.now();
    if (wait > 0) {
      const slept = await clock.sleep(wait, signal).then(
        () => true,
        () => false,
      );
      if (!slept) return;
    }
    lastStart = clock.now();
    await pass();
  };
}

/** The Service, if its LB is in place for the same object and was built with another node set. */
function needsHostUpdate(deps: NodeSyncDeps, key: string, nodes: readonly Node[]): Service | undefined {
  const service = deps.services.get(key);
  const synced = deps.cache.syncedNodes(key);
  if (!service || !synced || !wantsLoadBalancer(service, deps.servedClass) || needsCleanup(service)) return undefined;
  if (service.metadata.uid !== deps.cache.get(key)?.metadata.uid || deps.cache.builtWith(key, nodes)) return undefined;
  return service;
}

async function updateHosts(deps: NodeSyncDeps, key: string, nodes: readonly Node[]): Promise<void> {
  const service = needsHostUpdate(deps, key, nodes);
  if (!service) return;
  deps.logger.debug(`updating load balancer hosts of service ${key}: ${nodes.length} node(s)`);
  const started = deps.clock.now();
  deps.metrics.lbSyncs.inc();
  try {
    await deps.balancer.updateLoadBalancer(deps.clusterName, service, nodes);
  } catch (error) {
    if (error instanceof ImplementedElsewhereError) deps.cache.recordNodes(key, nodes);
    else await reportUpdateFailure(deps, key, nodes, error);
    return;
  } finally {
    // Every attempt, as upstream's deferred observation: its count follows the load balancer syncs.
    deps.metrics.updateHostLatency.observe((deps.clock.now() - started) / 1000);
  }
  deps.cache.recordNodes(key, nodes);
  if (nodes.length === 0)
    deps.recorder.event(service, "Warning", "UnAvailableLoadBalancer", "There are no available nodes for LoadBalancer");
  else deps.recorder.event(service, "Normal", "UpdatedLoadBalancer", "Updated load balancer with new hosts");
}

/**
 * Upstream asks GetLoadBalancer whether the failure matters and, if the LB exists, warns, counts a node
 * sync error and requeues the Service. We requeue in both cases: with the per-key lock a Service being
 * deleted never gets here, so a missing LB means drift that the full sync repairs.
 */
async function reportUpdateFailure(
  deps: NodeSyncDeps,
  key: string,
  nodes: readonly Node[],
  error: unknown,
): Promise<void> {
  const service = deps.services.get(key);
  if (!service) return;
  const exists = await deps.balancer.getLoadBalancer(deps.clusterName, service).then(
    (lb) => lb.exists,
    () => true,
  );
  if (exists) deps.metrics.nodeSyncErrors.inc();
  deps.logger.warn(
    `failed to update load balancer hosts of service ${key}${exists ? "" : " (load balancer not found)"}: ${errorMessage(error)}`,
  );
  if (exists)
    deps.recorder.event(
      service,
      "Warning",
      "UpdateLoadBalancerFailed",
      updateFailedMessage(nodes, errorMessage(error)),
    );
  deps.resync(key);
}
