/**
 * The periodic address refresh (upstream `UpdateNodeStatus`): every `--node-status-update-frequency`,
 * first right after the caches sync, every initialised Node's addresses are compared with the cloud's and
 * patched when they differ. `--concurrent-node-status-updates` loops work through the Nodes in chunks of
 * the lookup's batch size, so a batching provider answers a whole chunk in one call.
 *
 * Each pass but the first also queues again every Node still tainted uninitialized. Upstream retries such
 * a Node at its next update (a kubelet reports its status at least every five minutes), past the backoff
 * of a failed attempt and after "no metadata"; here a report that changes only heartbeat times never
 * reaches the handlers, so without this a Node the cloud did not know yet would wait for a change of its
 * own.
 */
import { ownsKey, type Shard } from "../../kube/shard.ts";
import { errorMessage } from "../../kube/worker.ts";
import { forEachChunk } from "../../util/chunks.ts";
import { needsInitialization } from "./plan.ts";
import { ensureAddresses, type NodeSyncDeps } from "./sync.ts";

export interface StatusUpdateDeps extends Pick<NodeSyncDeps, "api" | "nodes" | "lookup" | "logger" | "clock"> {
  readonly periodMs: number;
  readonly workers: number;
  /** The Nodes this thread refreshes (those its node queue owns). */
  readonly shard: Shard;
  /** Queues a Node's initialisation again (a plain add: ahead of any backoff). */
  readonly retryInitialization?: (name: string) => void;
}

export async function runNodeStatusUpdates(deps: StatusUpdateDeps, signal: AbortSignal): Promise<void> {
  // The first pass comes as the caches sync, when the add handler has just queued every tainted Node:
  // queued again, those the workers already hold would each be synced twice in a cold start.
  let pass: StatusUpdateDeps = { ...deps, retryInitialization: undefined };
  while (!signal.aborted) {
    await updateNodeStatus(pass, signal);
    pass = deps;
    await deps.clock.sleep(deps.periodMs, signal).catch(() => undefined);
  }
}

export async function updateNodeStatus(deps: StatusUpdateDeps, signal?: AbortSignal): Promise<void> {
  const started = deps.clock.now();
  const owned = deps.nodes.list().filter((n) => ownsKey(deps.shard, n.metadata.name));
  // Initialising Nodes are syncNode's; it writes their addresses itself.
  const nodes = owned.filter((n) => {
    if (!needsInitialization(n)) return true;
    deps.retryInitialization?.(n.metadata.name);
    return false;
  });
  await forEachChunk(nodes, { chunkSize: deps.lookup.batchSize, workers: deps.workers, signal }, async (node) => {
    try {
      const metadata = await deps.lookup.metadata(node);
      // Upstream dereferences a nil metadata here and can panic; no metadata means "leave it alone".
      if (metadata) await ensureAddresses(deps, node, metadata);
    } catch (error) {
      deps.logger.error(`Error updating the addresses of node ${node.metadata.name}: ${errorMessage(error)}`);
    }
  });
  deps.logger.debug(`Update ${nodes.length} nodes status took ${deps.clock.now() - started} ms`);
}
