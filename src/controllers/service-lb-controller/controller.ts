/**
 * `service-lb-controller` (upstream controllers/service, alias `service`): cloud load balancers for
 * Services of type LoadBalancer. Two queues as upstream: `service` (one key per Service, Ensure or
 * Delete, `--concurrent-service-syncs` workers, per-key backoff 5 s → 300 s, RetryError after its fixed
 * delay) and `node` (one worker; UpdateLoadBalancer when the backend node set changes, passes started at
 * most once a second: `NODE_SYNC_MIN_INTERVAL_MS`). Both take the
 * Service key's lock, so no two cloud calls for one Service ever overlap.
 *
 * Beyond upstream: `--load-balancer-class` serves one class as well; `--load-balancer-resync-period`
 * re-ensures every LB periodically so drift in the cloud is corrected; a Service deleted without our
 * finalizer is still cleaned up from the last copy we saw; a provider's `onChange` (an address freed, its
 * pools edited) queues the Services it names at once, ahead of their backoff (provider-changes.ts).
 *
 * Threads: per key. Each thread's `service` queue takes its share of the Service keys, the resync and the
 * delete handler included. The `node` queue holds one key and is not sharded: every thread runs its own
 * node pass, and a pass updates only the Services this thread has ensured (its cache's), so each load
 * balancer is still updated by exactly one thread.
 */
import { findRetryError } from "../../cloud/errors.ts";
import { enqueueOnChange } from "../../kube/handlers.ts";
import type { EventHandler } from "../../kube/informer.ts";
import { objectKey, type Service } from "../../kube/objects.ts";
import { WorkQueue } from "../../kube/queue.ts";
import type { Shard } from "../../kube/shard.ts";
import { exponentialLimiter } from "../../kube/rate-limiters.ts";
import { runWorkers } from "../../kube/worker.ts";
import { CONTROLLERS } from "../../names/controllers.ts";
import { KeyedLock } from "../../util/concurrency.ts";
import type { ControllerFactory, Wiring } from "../context.ts";
import { ServiceCache } from "./cache.ts";
import { LoadBalancerNodeSet } from "./node-set.ts";
import { NODE_SYNC_MIN_INTERVAL_MS, pacePasses, syncNodes, type NodeSyncDeps } from "./node-sync.ts";
import { needsCleanup, needsUpdate, shouldSyncUpdatedNode, wantsLoadBalancer } from "./predicates.ts";
import { followProviderChanges } from "./provider-changes.ts";
import { syncService } from "./sync.ts";

const ID = "service-lb-controller";
const NAMES = CONTROLLERS[ID];
/** The node queue holds one key: a pass always covers every node, so bursts of node events coalesce. */
const NODE_SYNC_KEY = "nodes";
const BACKOFF_BASE_MS = 5_000;
const BACKOFF_MAX_MS = 300_000;
/**
 * Upstream's `serviceSyncPeriod`: its Service informer resyncs every 30 s and the update handler queues
 * each Service that needs cleanup, so a deletion the cloud keeps failing is tried again at least that
 * often, past a backoff grown to 300 s (a Service stays Terminating for at most about 30 s after the
 * cloud recovers, not 5 minutes).
 */
export const CLEANUP_RETRY_PERIOD_MS = 30_000;

type Queues = { readonly services: WorkQueue; readonly nodes: WorkQueue };
type ServiceWiring = Wiring<NodeSyncDeps, Queues>;

export const serviceLbController: ControllerFactory = (ctx) => {
  const balancer = ctx.provider.loadBalancer;
  if (!balancer) return { skip: "the cloud provider does not support external load balancers" };
  const queue = (name: string, shard?: Shard): WorkQueue =>
    new WorkQueue({
      name,
      rateLimiter: exponentialLimiter(BACKOFF_BASE_MS, BACKOFF_MAX_MS),
      clock: ctx.clock,
      metrics: ctx.queueMetrics,
      shard,
    });
  const queues: Queues = { services: queue(NAMES.queues.services, ctx.shard), nodes: queue(NAMES.queues.nodes) };
  const nodeSet = new LoadBalancerNodeSet(ctx.informers.nodes());
  const deps: NodeSyncDeps = {
    api: ctx.api,
    services: ctx.informers.services(),
    lbNodes: nodeSet.list,
    balancer,
    clusterName: ctx.config.clusterName,
    servedClass: ctx.config.loadBalancerClass,
    recorder: ctx.recorder,
    cache: new ServiceCache(),
    logger: ctx.logger,
    lock: new KeyedLock(),
    workers: ctx.config.concurrentServiceSyncs,
    metrics: ctx.metrics,
    clock: ctx.clock,
    resync: (key) => queues.services.add(key),
  };
  const wiring: ServiceWiring = { ctx, deps, queues };
  return { name: ID, run: (signal) => run(wiring, nodeSet, signal) };
};

async function run(w: ServiceWiring, nodeSet: LoadBalancerNodeSet, signal: AbortSignal): Promise<void> {
  const { ctx, queues, deps } = w;
  const stopFollowing = nodeSet.follow();
  const removeHandlers = addHandlers(w);
  let stopResync = (): void => undefined;
  try {
    if (!(await ctx.informers.waitForSync(signal))) return;
    // `--load-balancer-resync-period`: every served Service goes through Ensure again (0: off).
    const served = (s: Service): boolean => wantsLoadBalancer(s, deps.servedClass);
    const stops = [
      requeueEvery(deps.services, queues.services, ctx.config.loadBalancerResyncPeriodMs, served),
      requeueEvery(deps.services, queues.services, CLEANUP_RETRY_PERIOD_MS, needsCleanup),
      followProviderChanges({
        balancer: deps.balancer,
        services: deps.services,
        queue: queues.services,
        servedClass: deps.servedClass,
      }),
    ];
    stopResync = () => stops.forEach((stop) => stop());
    await Promise.all([
      runWorkers(
        {
          queue: queues.services,
          workers: ctx.config.concurrentServiceSyncs,
          sync: (key) => deps.lock.withLock(key, () => syncService(deps, key)),
          requeue: (key, error) => requeueService(queues.services, key, error),
          logger: ctx.logger,
        },
        signal,
      ),
      runWorkers(
        {
          queue: queues.nodes,
          workers: 1,
          sync: pacePasses(deps.clock, NODE_SYNC_MIN_INTERVAL_MS, () => syncNodes(deps), signal),
          logger: ctx.logger,
        },
        signal,
      ),
    ]);
  } finally {
    stopResync();
    removeHandlers();
    stopFollowing();
    queues.services.shutDown();
    queues.nodes.shutDown();
  }
}

function addHandlers(w: ServiceWiring): () => void {
  const { ctx, queues } = w;
  const removeService = ctx.informers.services().addHandler(serviceHandler(w));
  const removeNode = ctx.informers
    .nodes()
    .addHandler(enqueueOnChange(() => queues.nodes.add(NODE_SYNC_KEY), shouldSyncUpdatedNode));
  return () => {
    removeService();
    removeNode();
  };
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
function serviceHandler(w: ServiceWiring): EventHandler<Service> {
  const { deps } = w;
  const queue = w.queues.services;
  const served = deps.servedClass;
  const readsLabels = deps.balancer.readsServiceLabels === true;
  return {
    add: (service) => {
      if (wantsLoadBalancer(service, served) || needsCleanup(service)) queue.add(objectKey(service));
    },
    update: (old, service) => {
      if (needsUpdate(old, service, served, readsLabels) || needsCleanup(service)) queue.add(objectKey(service));
    },
    delete: (service) => {
      const key = objectKey(service);
      if (!queue.owns(key)) return;
      const known = deps.cache.get(key)?.metadata.uid === service.metadata.uid;
      if (!known && (service.metadata.deletionTimestamp !== undefined || !wantsLoadBalancer(service, served))) return;
      deps.cache.setIfAbsent(key, service);
      queue.add(key);
    },
  };
}

/**
 * Every `periodMs` (0: never), each Service `which` picks is queued again: a plain add, so it goes ahead of
 * any backoff it is waiting out.
 */
export function requeueEvery(
  services: { list(): readonly Service[] },
  queue: Pick<WorkQueue, "add">,
  periodMs: number,
  which: (service: Service) => boolean,
): () => void {
  if (periodMs <= 0) return () => undefined;
  const timer = setInterval(() => {
    for (const service of services.list()) if (which(service)) queue.add(objectKey(service));
  }, periodMs);
  return () => clearInterval(timer);
}
