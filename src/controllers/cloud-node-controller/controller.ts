/**
 * `cloud-node-controller` (upstream controllers/node): initialises Nodes that kubelet registered with the
 * uninitialized taint, keeps beta→GA labels in step, and refreshes every Node's addresses periodically.
 * Runs only when the provider can describe instances.
 *
 * Threads: per key. Each thread's queue takes its share of the Node names, and its address refresh covers
 * the same Nodes, so one Node's initialisation and refreshes always run on one thread.
 */
import { WorkQueue } from "../../kube/queue.ts";
import { defaultControllerRateLimiter } from "../../kube/rate-limiters.ts";
import { runWorkers } from "../../kube/worker.ts";
import { CONTROLLERS } from "../../names/controllers.ts";
import { Semaphore } from "../../util/concurrency.ts";
import type { ControllerFactory, Wiring } from "../context.ts";
import { runNodeStatusUpdates } from "./status.ts";
import {
  forgetNode,
  newInitProgress,
  nodeSeen,
  syncNode,
  updateNeedsSync,
  WATCH_CATCH_UP_MS,
  type NodeSyncDeps,
} from "./sync.ts";

/**
 * Node initialisations past their cloud lookup, writing at once (per controller thread, as its workers
 * are). A worker gathers as many keys as one batched lookup answers, so 50 workers with batches of 100
 * had all 5,000 Nodes of a burst writing at once, each an async call chain waiting for a slot on the
 * wire: 30–45 MiB of a 180–190 MiB peak, for no speed (README, bursts of Nodes). 1,024 still lets ten
 * workers' batches all write, as before. 256 took another 13 MiB off, but under a shared rate limit it
 * also cut the Node writes' share of the budget: a cold start's Nodes came later, and its load balancers
 * were updated more often.
 */
export const MAX_INITIALIZING = 1024;

const ID = "cloud-node-controller";
const NAMES = CONTROLLERS[ID];

type Queues = { readonly nodes: WorkQueue };

export const cloudNodeController: ControllerFactory = (ctx) => {
  const lookup = ctx.instances;
  if (!lookup) return { skip: "the cloud provider does not support instances" };
  const deps: NodeSyncDeps = {
    api: ctx.api,
    nodes: ctx.informers.nodes(),
    lookup,
    recorder: ctx.recorder,
    metrics: ctx.metrics,
    logger: ctx.logger,
    clock: ctx.clock,
    progress: newInitProgress(ctx.clock),
    watchCatchUpMs: WATCH_CATCH_UP_MS,
    initializing: new Semaphore(MAX_INITIALIZING),
  };
  const queues: Queues = {
    nodes: new WorkQueue({
      name: NAMES.queues.nodes,
      rateLimiter: defaultControllerRateLimiter(),
      clock: ctx.clock,
      metrics: ctx.queueMetrics,
      shard: ctx.shard,
    }),
  };
  const wiring: Wiring<NodeSyncDeps, Queues> = { ctx, deps, queues };
  return { name: ID, run: (signal) => run(wiring, signal) };
};

async function run(w: Wiring<NodeSyncDeps, Queues>, signal: AbortSignal): Promise<void> {
  const { ctx, deps, queues } = w;
  const { config } = ctx;
  const removeHandlers = addHandlers(w);
  try {
    if (!(await ctx.informers.nodes().waitForSync(signal))) return;
    await Promise.all([
      // A worker takes as many waiting keys as one batched lookup answers, so even
      // --concurrent-node-syncs=1 initialises a burst of Nodes with one cloud call per batch rather
      // than one per Node. Without batching the gather size is 1: upstream's one key per worker.
      runWorkers(
        {
          queue: queues.nodes,
          workers: config.concurrentNodeSyncs,
          sync: (name) => syncNode(deps, name),
          logger: ctx.logger,
          gather: { size: deps.lookup.batchSize, windowMs: config.cloudBatchWindowMs },
        },
        signal,
      ),
      runNodeStatusUpdates(
        {
          ...deps,
          periodMs: config.nodeStatusUpdateFrequencyMs,
          workers: config.concurrentNodeStatusUpdates,
          shard: ctx.shard,
          retryInitialization: (name) => queues.nodes.add(name),
        },
        signal,
      ),
    ]);
  } finally {
    removeHandlers();
    queues.nodes.shutDown();
  }
}

/**
 * Upstream enqueues on every add and update (no delete handler); here an update is enqueued only when the
 * sync has something to do with it (`updateNeedsSync`), and the delete handler only drops what this
 * controller remembers about the Node.
 */
function addHandlers(w: Wiring<NodeSyncDeps, Queues>): () => void {
  const { deps, queues } = w;
  return w.ctx.informers.nodes().addHandler({
    add: (node) => queues.nodes.add(node.metadata.name),
    update: (_old, node) => {
      nodeSeen(deps.progress, node);
      if (updateNeedsSync(deps.progress, node)) queues.nodes.add(node.metadata.name);
    },
    delete: (node) => forgetNode(deps.progress, node),
  });
}
