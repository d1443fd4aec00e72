/**
 * `syncNode(name)`: read the Node from the cache → decide (plan.ts) → the fewest writes. Initialising a
 * Node costs one cloud question (batched when the provider can), one Node patch (providerID, labels,
 * taint removal), one `nodes/status` patch when the addresses change, and one `Synced` event.
 */
import type { InstanceLookup } from "../../cloud/instance-lookup.ts";
import type { InstanceMetadata } from "../../cloud/provider.ts";
import { NODES, type KubeApi } from "../../kube/api.ts";
import type { EventRecorder } from "../../kube/events.ts";
import type { Lister } from "../../kube/informer.ts";
import type { Node } from "../../kube/objects.ts";
import { NODE_UPDATE_RETRY, patchWithPrecondition } from "../../kube/patch.ts";
import { trimNode } from "../../kube/transforms.ts";
import { isNotFound } from "../../kube/transport.ts";
import type { Logger } from "../../log/logger.ts";
import type { Metrics } from "../../metrics/metrics.ts";
import type { Clock } from "../../util/clock.ts";
import type { Slots } from "../../util/concurrency.ts";
import { AwaitedWrites } from "./awaited-writes.ts";
import {
  ADDRESS_READS,
  INIT_READS,
  LABEL_READS,
  needsInitialization,
  planAddresses,
  planInitialization,
  planLabelReconcile,
} from "./plan.ts";

export interface NodeSyncDeps {
  readonly api: KubeApi;
  readonly nodes: Lister<Node>;
  readonly lookup: InstanceLookup;
  readonly recorder: EventRecorder;
  readonly metrics: Pick<Metrics, "taintRemovalDelay" | "initialNodeSyncDelay">;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly progress: InitProgress;
  /** The longest a Node's addresses wait for the watch to show its Node patch (`WATCH_CATCH_UP_MS`). */
  readonly watchCatchUpMs: number;
  /** Initialisations past their cloud lookup, writing, at most so many at once (`MAX_INITIALIZING`). */
  readonly initializing: Slots;
}

/**
 * A Node's status patch waits until the watch shows its Node patch, for this long at most. Sent right
 * after the first, the second write cost the API server more (on 2 cores, in its audit log, 64 and 94 ms
 * for the two patches against 53 and 54 when seconds apart; 60–70 ms each with this wait), most likely
 * because it starts from the object in its watch cache, and a copy the first write has not reached yet
 * makes it read etcd and apply the patch again.
 */
export const WATCH_CATCH_UP_MS = 1000;

/**
 * What this controller remembers between syncs of a Node it is initialising, by UID:
 * - `writtenFrom`: the resourceVersion its taint-removing write was made against. A sync that still sees
 *   exactly that version in the cache stops there (the write's watch event brings the key back), instead
 *   of asking the cloud again and losing a Conflict. Any other version ends the entry.
 * - `unfinished`: the taint is gone but the addresses / `Synced` event are not written yet (e.g. the API
 *   server went away in between); the next sync finishes with the metadata it already has.
 * - `awaited`: Node patches whose watch event a sync waits for (`nodeSeen` wakes them).
 */
export interface InitProgress {
  readonly writtenFrom: Map<string, string>;
  readonly unfinished: Map<string, InstanceMetadata>;
  readonly awaited: AwaitedWrites;
}

export function newInitProgress(clock: Clock): InitProgress {
  return { writtenFrom: new Map(), unfinished: new Map(), awaited: new AwaitedWrites(clock) };
}

/** The informer delivered this version of the Node: a sync waiting to see it goes on. */
export function nodeSeen(progress: InitProgress, node: Node): void {
  progress.awaited.seen(uidOf(node), node.metadata.resourceVersion);
}

export function forgetNode(progress: InitProgress, node: Node): void {
  progress.awaited.forget(uidOf(node));
  progress.writtenFrom.delete(uidOf(node));
  progress.unfinished.delete(uidOf(node));
}

const uidOf = (node: Node): string => node.metadata.uid ?? node.metadata.name;

/**
 * Whether a Node update gives `syncNode` anything to do: initialisation, its unfinished second half, or
 * labels to reconcile. Upstream enqueues every update and lets the sync find nothing; here a heartbeat
 * (a status-only update, thousands a minute in a large cluster) costs no queue round trip.
 */
export function updateNeedsSync(progress: InitProgress, node: Node): boolean {
  return needsInitialization(node) || progress.unfinished.has(uidOf(node)) || planLabelReconcile(node) !== undefined;
}

export async function syncNode(deps: NodeSyncDeps, name: string): Promise<void> {
  const node = deps.nodes.get(name);
  if (!node) return;
  try {
    await syncCachedNode(deps, node);
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
}

async function syncCachedNode(deps: NodeSyncDeps, node: Node): Promise<void> {
  const uid = uidOf(node);
  const writtenFrom = deps.progress.writtenFrom.get(uid);
  if (writtenFrom !== undefined && writtenFrom === node.metadata.resourceVersion) return;
  deps.progress.writtenFrom.delete(uid);
  if (needsInitialization(node)) {
    await initializeNode(deps, node);
    return;
  }
  const unfinished = deps.progress.unfinished.get(uid);
  if (unfinished) await finishInitialization(deps, node, unfinished);
  else await reconcileLabels(deps, node);
}

async function initializeNode(deps: NodeSyncDeps, node: Node): Promise<void> {
  const name = node.metadata.name;
  deps.logger.debug(`Initializing node ${name} with cloud provider`);
  const metadata = await deps.lookup.metadata(node);
  if (!metadata) {
    deps.logger.info(`Skip sync node ${name}: the cloud provider returned no metadata for it`);
    return;
  }
  await deps.initializing.run(() => writeInitialization(deps, node, metadata));
}

/**
 * The Node patch, then (once the watch shows it) the addresses and `Synced`; built from the cached Node
 * as it is now, which may have changed while the initialisation waited for its turn.
 */
async function writeInitialization(deps: NodeSyncDeps, queued: Node, metadata: InstanceMetadata): Promise<void> {
  const name = queued.metadata.name;
  const node = deps.nodes.get(name);
  if (!node || uidOf(node) !== uidOf(queued)) return;
  let refused: string | undefined;
  let discarded: readonly string[] = [];
  const written = await patchWithPrecondition({
    api: deps.api,
    resource: NODES,
    from: node,
    policy: NODE_UPDATE_RETRY,
    keep: trimNode,
    guards: INIT_READS,
    build: (current) => {
      if (!needsInitialization(current)) return undefined;
      const plan = planInitialization(current, metadata);
      refused = plan.ok ? undefined : plan.error;
      discarded = plan.ok ? plan.value.discarded : [];
      return plan.ok ? plan.value.patch : undefined;
    },
  });
  if (refused !== undefined) throw new Error(refused);
  if (!written) return;
  for (const line of discarded) deps.logger.warn(`node ${name}: ${line}`);
  if (node.metadata.resourceVersion) deps.progress.writtenFrom.set(uidOf(written), node.metadata.resourceVersion);
  deps.progress.unfinished.set(uidOf(written), metadata);
  deps.metrics.taintRemovalDelay.observe(secondsSinceCreation(deps.clock, written));
  await watchShows(deps, written);
  await finishInitialization(deps, shownOr(deps, written), metadata);
}

/**
 * The cached Node once the watch has shown our write: the write tested only what it read, so other
 * fields may have changed before it, and `written` is our view of it, not the API server's.
 */
function shownOr(deps: NodeSyncDeps, written: Node): Node {
  const cached = deps.nodes.get(written.metadata.name);
  const shown = cached !== undefined && cached.metadata.uid === written.metadata.uid && !needsInitialization(cached);
  return shown ? cached : written;
}

/** Resolves once the informer has delivered `written`, or after `watchCatchUpMs`. */
async function watchShows(deps: NodeSyncDeps, written: Node): Promise<void> {
  const version = written.metadata.resourceVersion;
  if (!version || deps.nodes.get(written.metadata.name)?.metadata.resourceVersion === version) return;
  await deps.progress.awaited.wait(uidOf(written), version, deps.watchCatchUpMs);
}

/**
 * Addresses right away (upstream does not wait for the periodic refresh), then `Synced`. The addresses go
 * out ahead of other Nodes' waiting first writes: in a burst they would otherwise follow every Node patch
 * queued meanwhile, and thousands of Nodes would stay untainted without addresses for seconds.
 */
async function finishInitialization(deps: NodeSyncDeps, node: Node, metadata: InstanceMetadata): Promise<void> {
  const written = (await ensureAddresses(deps, node, metadata, true)) ?? node;
  deps.progress.unfinished.delete(uidOf(node));
  deps.recorder.event(written, "Normal", "Synced", "Node synced successfully");
  deps.metrics.initialNodeSyncDelay.observe(secondsSinceCreation(deps.clock, written));
  deps.logger.info(`Successfully initialized node ${node.metadata.name} with cloud provider`, {
    providerID: written.spec?.providerID ?? "",
  });
}

/**
 * Writes `status.addresses` when the cloud's (filtered) list differs. A node-IP mismatch is logged and
 * nothing is written (upstream); API errors are thrown. Resolves the written Node, if any.
 */
export async function ensureAddresses(
  deps: Pick<NodeSyncDeps, "api" | "logger">,
  node: Node,
  metadata: InstanceMetadata,
  urgent = false,
): Promise<Node | undefined> {
  return patchWithPrecondition({
    api: deps.api,
    resource: NODES,
    subresource: "status",
    from: node,
    keep: trimNode,
    urgent,
    guards: ADDRESS_READS,
    build: (current) => {
      const plan = planAddresses(current, metadata);
      if (!plan.ok)
        deps.logger.error(
          `Failed to update node addresses for node ${JSON.stringify(current.metadata.name)}: ${plan.error}`,
        );
      return plan.ok && plan.value ? { status: { addresses: plan.value } } : undefined;
    },
  });
}

async function reconcileLabels(deps: NodeSyncDeps, node: Node): Promise<void> {
  await patchWithPrecondition({
    api: deps.api,
    resource: NODES,
    from: node,
    guards: LABEL_READS,
    build: (current) => {
      const labels = planLabelReconcile(current);
      return labels && { metadata: { labels } };
    },
  });
}

function secondsSinceCreation(clock: Clock, node: Node): number {
  const created = Date.parse(node.metadata.creationTimestamp ?? "");
  return Number.isNaN(created) ? 0 : Math.max(0, (clock.now() - created) / 1000);
}
