/**
 * `cloud-node-controller` (upstream controllers/node): initialises Nodes that kubelet registered with the
 * uninitialized taint, keeps beta→GA labels in step, and refreshes every Node's addresses periodically.
 * Runs only when the provider can describe instances.
 */
import type { Controller, ControllerContext, ControllerFactory } from "../../app/context.ts";
import { createInstanceLookup } from "../../cloud/instance-lookup.ts";
import { WorkQueue } from "../../kube/queue.ts";
import { defaultControllerRateLimiter } from "../../kube/rate-limiters.ts";
import { runWorkers } from "../../kube/worker.ts";
import { runNodeStatusUpdates } from "./status.ts";
import { forgetNode, newInitProgress, syncNode, type NodeSyncDeps } from "./sync.ts";

export const COMPONENT = "cloud-node-controller";
/** Upstream's queue name, so the `workqueue_*` series match. */
export const QUEUE_NAME = "Nodes";

export const cloudNodeController: ControllerFactory = (ctx: ControllerContext) => {
  const instances = ctx.provider.instances;
  if (!instances) return { skip: "the cloud provider does not support instances" };
  const { config } = ctx;
  const informer = ctx.informers.nodes();
  const lookup = createInstanceLookup(instances, { windowMs: config.cloudBatchWindowMs, maxBatchSize: config.cloudBatchSize });
  const deps: NodeSyncDeps = {
    api: ctx.apiFor("node-controller"),
    nodes: informer,
    lookup,
    recorder: ctx.events.recorder(COMPONENT),
    metrics: ctx.metrics,
    logger: ctx.logger,
    clock: ctx.clock,
    progress: newInitProgress(),
  };
  const queue = new WorkQueue({ name: QUEUE_NAME, rateLimiter: defaultControllerRateLimiter(), clock: ctx.clock, metrics: ctx.queueMetrics });
  return {
    name: COMPONENT,
    async run(signal: AbortSignal): Promise<void> {
      // Upstream enqueues on every add and update (no delete handler); the delete handler here only
      // drops what this controller remembers about the Node.
      const remove = informer.addHandler({
        add: (node) => queue.add(node.metadata.name),
        update: (_old, node) => queue.add(node.metadata.name),
        delete: (node) => forgetNode(deps.progress, node),
      });
      try {
        if (!(await informer.waitForSync(signal))) return;
        await Promise.all([
          // A worker takes as many waiting keys as one batched lookup answers, so even
          // --concurrent-node-syncs=1 initialises a burst of Nodes with one cloud call per batch rather
          // than one per Node. Without batching the gather size is 1: upstream's one key per worker.
          runWorkers({ queue, workers: config.concurrentNodeSyncs, sync: (name) => syncNode(deps, name), logger: ctx.logger, gather: { size: lookup.batchSize, windowMs: config.cloudBatchWindowMs } }, signal),
          runNodeStatusUpdates({ ...deps, periodMs: config.nodeStatusUpdateFrequencyMs, workers: config.concurrentNodeStatusUpdates }, signal),
        ]);
      } finally {
        remove();
      }
    },
  } satisfies Controller;
};
