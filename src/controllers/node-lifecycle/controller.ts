/**
 * `cloud-node-lifecycle-controller` (upstream controllers/nodelifecycle): every `--node-monitor-period`
 * (sliding: the period runs from the end of a pass), delete Nodes whose instance is gone and taint the
 * ones whose instance is shut down. No work queue: a periodic loop over the cache, as upstream. Runs
 * only when the provider can describe instances.
 */
import type { Controller, ControllerContext, ControllerFactory } from "../../app/context.ts";
import { createInstanceLookup } from "../../cloud/instance-lookup.ts";
import { errorMessage } from "../../kube/worker.ts";
import { monitorNodes, type LifecycleDeps } from "./sync.ts";

export const COMPONENT = "cloud-node-lifecycle-controller";

export const nodeLifecycleController: ControllerFactory = (ctx: ControllerContext) => {
  const instances = ctx.provider.instances;
  if (!instances) return { skip: "the cloud provider does not support instances" };
  const { config } = ctx;
  const informer = ctx.informers.nodes();
  const deps: LifecycleDeps = {
    api: ctx.apiFor("node-controller"),
    nodes: informer,
    lookup: createInstanceLookup(instances, { windowMs: config.cloudBatchWindowMs, maxBatchSize: config.cloudBatchSize }),
    recorder: ctx.events.recorder(COMPONENT),
    logger: ctx.logger,
    clock: ctx.clock,
    policy: { confirm: config.nodeDeletionConfirmation, periodMs: config.nodeMonitorPeriodMs },
    missingSince: new Map(),
  };
  return {
    name: COMPONENT,
    async run(signal: AbortSignal): Promise<void> {
      if (!(await informer.waitForSync(signal))) return;
      while (!signal.aborted) {
        try {
          await monitorNodes(deps, signal);
        } catch (error) {
          ctx.logger.error(`monitoring nodes failed: ${errorMessage(error)}`);
        }
        await ctx.clock.sleep(config.nodeMonitorPeriodMs, signal).catch(() => undefined);
      }
    },
  } satisfies Controller;
};
