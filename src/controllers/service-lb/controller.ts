/**
 * `service-lb-controller` (upstream controllers/service, alias `service`): cloud load balancers for
 * Services of type LoadBalancer. Two queues as upstream: `service` (one key per Service, Ensure or
 * Delete, `--concurrent-service-syncs` workers, per-key backoff 5 s → 300 s, RetryError after its fixed
 * delay) and `node` (one worker; UpdateLoadBalancer when the backend node set changes). Both take the
 * Service key's lock, so no two cloud calls for one Service ever overlap.
 *
 * Beyond upstream: `--load-balancer-class` serves one class as well; `--load-balancer-resync-period`
 * re-ensures every LB periodically so drift in the cloud is corrected; a Service deleted without our
 * finalizer is still cleaned up from the last copy we saw.
 */
import { findRetryError } from "../../cloud/errors.ts";
import type { ControllerContext, ControllerFactory } from "../../app/context.ts";
import type { EventHandler } from "../../kube/informer.ts";
import { enqueueOnChange } from "../../kube/handlers.ts";
import { objectKey, type Service } from "../../kube/objects.ts";
import { WorkQueue } from "../../kube/queue.ts";
import { exponentialLimiter } from "../../kube/rate-limiters.ts";
import { runWorkers } from "../../kube/worker.ts";
import { KeyedLock } from "../../util/concurrency.ts";
import { ServiceCache } from "./cache.ts";
import { syncNodes, type NodeSyncDeps } from "./node-sync.ts";
import { needsCleanup, needsUpdate, shouldSyncUpdatedNode, wantsLoadBalancer } from "./predicates.ts";
import { syncService } from "./sync.ts";

export const SERVICE_QUEUE = "service";
export const NODE_QUEUE = "node";
/** The node queue holds one key: a pass always covers every node, so bursts of node events coalesce. */
const NODE_SYNC_KEY = "nodes";
const BACKOFF_BASE_MS = 5_000;
const BACKOFF_MAX_MS = 300_000;

interface Wiring {
  readonly ctx: ControllerContext;
  readonly queue: WorkQueue;
  readonly nodeQueue: WorkQueue;
  readonly deps: NodeSyncDeps;
}

export const createServiceLbController: ControllerFactory = (ctx) => {
  const balancer = ctx.provider.loadBalancer;
  if (!balancer) return { skip: "the cloud provider does not support external load balancers" };
  const queueOptions = { clock: ctx.clock, metrics: ctx.queueMetrics };
  const queue = new WorkQueue({ name: SERVICE_QUEUE, rateLimiter: exponentialLimiter(BACKOFF_BASE_MS, BACKOFF_MAX_MS), ...queueOptions });
  const nodeQueue = new WorkQueue({ name: NODE_QUEUE, rateLimiter: exponentialLimiter(BACKOFF_BASE_MS, BACKOFF_MAX_MS), ...queueOptions });
  const deps: NodeSyncDeps = {
    api: ctx.apiFor("service-controller"),
    services: ctx.informers.services(),
    nodes: ctx.informers.nodes(),
    balancer,
    clusterName: ctx.config.clusterName,
    servedClass: ctx.config.loadBalancerClass,
    recorder: ctx.events.recorder("service-controller"),
    cache: new ServiceCache(),
    logger: ctx.logger,
    lock: new KeyedLock(),
    workers: ctx.config.concurrentServiceSyncs,
    metrics: ctx.metrics,
    clock: ctx.clock,
    resync: (key) => queue.add(key),
  };
  const wiring: Wiring = { ctx, queue, nodeQueue, deps };
  ctx.informers.services().addHandler(serviceHandler(wiring));
  ctx.informers.nodes().addHandler(enqueueOnChange(() => nodeQueue.add(NODE_SYNC_KEY), shouldSyncUpdatedNode));
  return { name: "service-lb-controller", run: (signal) => run(wiring, signal) };
};

async function run(w: Wiring, signal: AbortSignal): Promise<void> {
  const { ctx, queue, nodeQueue, deps } = w;
  if (!(await ctx.informers.waitForSync(signal))) {
    queue.shutDown();
    nodeQueue.shutDown();
    return;
  }
  const stopResync = startResync(w, ctx.config.loadBalancerResyncPeriodMs);
  try {
    await Promise.all([
      runWorkers(
        {
          queue,
          workers: ctx.config.concurrentServiceSyncs,
          sync: (key) => deps.lock.withLock(key, () => syncService(deps, key)),
          requeue: (key, error) => requeueService(queue, key, error),
          logger: ctx.logger,
        },
        signal,
      ),
      runWorkers({ queue: nodeQueue, workers: 1, sync: () => syncNodes(deps), logger: ctx.logger }, signal),
    ]);
  } finally {
    stopResync();
  }
}

/** RetryError: again after exactly its delay, without growing the exponential backoff. */
export function requeueService(queue: WorkQueue, key: string, error: unknown): void {
  const retry = findRetryError(error);
  if (retry) queue.addAfter(key, retry.retryAfterMs);
  else queue.addRateLimited(key);
}

/**
 * Add: every Service that wants an LB or still carries our finalizer, so a restart reconciles them all
 * (and finishes deletions that happened while the manager was down). Update: changes that matter.
 * Delete: only a Service that vanished without our finalizer (else the update path already cleaned up).
 */
function serviceHandler(w: Wiring): EventHandler<Service> {
  const { queue, deps } = w;
  const served = deps.servedClass;
  return {
    add: (service) => {
      if (wantsLoadBalancer(service, served) || needsCleanup(service)) queue.add(objectKey(service));
    },
    update: (old, service) => {
      if (needsUpdate(old, service, served) || needsCleanup(service)) queue.add(objectKey(service));
    },
    delete: (service) => {
      const key = objectKey(service);
      const known = deps.cache.get(key)?.metadata.uid === service.metadata.uid;
      if (!known && (service.metadata.deletionTimestamp !== undefined || !wantsLoadBalancer(service, served))) return;
      deps.cache.setIfAbsent(key, service);
      queue.add(key);
    },
  };
}

/** `--load-balancer-resync-period`: every served Service goes through Ensure again. 0: off. */
function startResync(w: Wiring, periodMs: number): () => void {
  if (periodMs <= 0) return () => undefined;
  const timer = setInterval(() => {
    for (const service of w.deps.services.list()) {
      if (wantsLoadBalancer(service, w.deps.servedClass)) w.queue.add(objectKey(service));
    }
  }, periodMs);
  return () => clearInterval(timer);
}
