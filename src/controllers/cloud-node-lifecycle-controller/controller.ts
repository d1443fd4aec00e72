/**
 * `cloud-node-lifecycle-controller` (upstream controllers/nodelifecycle): every `--node-monitor-period`
 * (sliding: the period runs from the end of a pass), delete Nodes whose instance is gone and taint the
 * ones whose instance is shut down. No work queue: a periodic loop, as upstream, but over the Nodes a pass
 * can act on (NotReady, or carrying the shutdown taint), which an informer handler keeps up to date; a
 * pass over 5,000 Ready Nodes every 5 s was most of an idle manager's CPU. Runs only when the provider
 * can describe instances.
 *
 * Threads: per key. Every thread runs the loop over its share of the Nodes (by name, the same share as the
 * cloud-node-controller's), so no Node is ever deleted or tainted by two threads.
 */
import type { InformerView, Lister } from "../../kube/informer.ts";
import type { Node } from "../../kube/objects.ts";
import { errorMessage } from "../../kube/worker.ts";
import type { ControllerFactory, Wiring } from "../context.ts";
import { mayNeedAction } from "./plan.ts";
import { monitorNodes, type LifecycleDeps } from "./sync.ts";

const ID = "cloud-node-lifecycle-controller";

export const cloudNodeLifecycleController: ControllerFactory = (ctx) => {
  const lookup = ctx.instances;
  if (!lookup) return { skip: "the cloud provider does not support instances" };
  const { config } = ctx;
  const candidates = new Set<string>();
  const deps: LifecycleDeps = {
    api: ctx.api,
    nodes: candidateLister(ctx.informers.nodes(), candidates),
    lookup,
    recorder: ctx.recorder,
    logger: ctx.logger,
    clock: ctx.clock,
    policy: { confirm: config.nodeDeletionConfirmation, periodMs: config.nodeMonitorPeriodMs },
    missingSince: new Map(),
    shard: ctx.shard,
  };
  const wiring: Wiring<LifecycleDeps> = { ctx, deps, queues: {} };
  return { name: ID, run: (signal) => run(wiring, candidates, signal) };
};

async function run(w: Wiring<LifecycleDeps>, candidates: Set<string>, signal: AbortSignal): Promise<void> {
  const { ctx, deps } = w;
  const removeHandler = trackCandidates(ctx.informers.nodes(), candidates);
  try {
    if (!(await ctx.informers.nodes().waitForSync(signal))) return;
    while (!signal.aborted) {
      try {
        await monitorNodes(deps, signal);
      } catch (error) {
        ctx.logger.error(`monitoring nodes failed: ${errorMessage(error)}`);
      }
      await ctx.clock.sleep(ctx.config.nodeMonitorPeriodMs, signal).catch(() => undefined);
    }
  } finally {
    removeHandler();
  }
}

/** Keeps `candidates` the names of the Nodes a monitor pass may act on (the pass keeps its own shard). */
function trackCandidates(informer: InformerView<Node>, candidates: Set<string>): () => void {
  const see = (node: Node): void => {
    if (mayNeedAction(node)) candidates.add(node.metadata.name);
    else candidates.delete(node.metadata.name);
  };
  return informer.addHandler({
    add: see,
    update: (_old, node) => see(node),
    delete: (node) => candidates.delete(node.metadata.name),
  });
}

/** The cached Nodes named in `candidates`, as a lister for the monitor pass. */
function candidateLister(informer: Lister<Node>, candidates: ReadonlySet<string>): Lister<Node> {
  return {
    get: (name) => (candidates.has(name) ? informer.get(name) : undefined),
    list: () => [...candidates].flatMap((name) => informer.get(name) ?? []),
    get size() {
      return candidates.size;
    },
  };
}
