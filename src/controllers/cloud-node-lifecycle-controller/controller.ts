/**
 * `cloud-node-lifecycle-controller` (upstream controllers/nodelifecycle): every `--node-monitor-period`
 * (sliding: the period runs from the end of a pass), delete Nodes whose instance is gone and taint the
 * ones whose instance is shut down. No work queue and no informer handlers: a periodic loop over the
 * cache, as upstream. Runs only when the provider can describe instances.
 *
 * Threads: per key. Every thread runs the loop over its share of the Nodes (by name, the same share as the
 * cloud-node-controller's), so no Node is ever deleted or tainted by two threads.
 */
import { errorMessage } from "../../kube/worker.ts";
import type { ControllerFactory, Wiring } from "../context.ts";
import { monitorNodes, type LifecycleDeps } from "./sync.ts";

const ID = "cloud-node-lifecycle-controller";

export const cloudNodeLifecycleController: ControllerFactory = (ctx) => {
  const lookup = ctx.instances;
  if (!lookup) return { skip: "the cloud provider does not support instances" };
  const { config } = ctx;
  const deps: LifecycleDeps = {
    api: ctx.api,
    nodes: ctx.informers.nodes(),
    lookup,
    recorder: ctx.recorder,
    logger: ctx.logger,
    clock: ctx.clock,
    policy: { confirm: config.nodeDeletionConfirmation, periodMs: config.nodeMonitorPeriodMs },
    missingSince: new Map(),
    shard: ctx.shard,
  };
  const wiring: Wiring<LifecycleDeps> = { ctx, deps, queues: {} };
  return { name: ID, run: (signal) => run(wiring, signal) };
};

async function run(w: Wiring<LifecycleDeps>, signal: AbortSignal): Promise<void> {
  const { ctx, deps } = w;
  if (!(await ctx.informers.nodes().waitForSync(signal))) return;
  while (!signal.aborted) {
    try {
      await monitorNodes(deps, signal);
    } catch (error) {
      ctx.logger.error(`monitoring nodes failed: ${errorMessage(error)}`);
    }
    await ctx.clock.sleep(ctx.config.nodeMonitorPeriodMs, signal).catch(() => undefined);
  }
}
