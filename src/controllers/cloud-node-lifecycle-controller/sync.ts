/**
 * One monitor pass (upstream `MonitorNodes`): Ready Nodes lose the shutdown taint, and only NotReady /
 * Unknown Nodes cost cloud questions — asked a batch at a time when the provider can batch, one Node at a
 * time (as upstream) when it cannot. Each Node's outcome is decided in plan.ts.
 */
import type { InstanceLookup } from "../../cloud/instance-lookup.ts";
import type { Answer, InstanceState } from "../../cloud/provider.ts";
import { NODES, type KubeApi } from "../../kube/api.ts";
import type { EventRecorder } from "../../kube/events.ts";
import type { Lister } from "../../kube/informer.ts";
import type { Node } from "../../kube/objects.ts";
import { patchWithPrecondition } from "../../kube/patch.ts";
import { ownsKey, WHOLE, type Shard } from "../../kube/shard.ts";
import { isNotFound } from "../../kube/transport.ts";
import { errorMessage } from "../../kube/worker.ts";
import type { Logger } from "../../log/logger.ts";
import { forEachChunk } from "../../util/chunks.ts";
import type { Clock } from "../../util/clock.ts";
import {
  addShutdownTaintPatch,
  decideNotReady,
  readyStatus,
  removeShutdownTaintPatch,
  type DeletionPolicy,
} from "./plan.ts";

export interface LifecycleDeps {
  readonly api: KubeApi;
  readonly nodes: Lister<Node>;
  readonly lookup: InstanceLookup;
  readonly recorder: EventRecorder;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly policy: DeletionPolicy;
  /** Node UID → when the first unconfirmed "does not exist" arrived. */
  readonly missingSince: Map<string, number>;
  /** The Nodes this thread monitors, by name; default: every Node. */
  readonly shard?: Shard;
}

const uidOf = (node: Node): string => node.metadata.uid ?? node.metadata.name;

export async function monitorNodes(deps: LifecycleDeps, signal?: AbortSignal): Promise<void> {
  const shard = deps.shard ?? WHOLE;
  const nodes = deps.nodes.list().filter((node) => ownsKey(shard, node.metadata.name));
  const listed = new Set(nodes.map(uidOf));
  for (const uid of deps.missingSince.keys()) if (!listed.has(uid)) deps.missingSince.delete(uid);
  const notReady: Node[] = [];
  for (const node of nodes) {
    if (readyStatus(node) !== "True") notReady.push(node);
    else {
      deps.missingSince.delete(uidOf(node));
      if (removeShutdownTaintPatch(node)) await patchTaints(deps, node, removeShutdownTaintPatch);
    }
  }
  const failures: string[] = [];
  await forEachChunk(notReady, { chunkSize: deps.lookup.batchSize, workers: 1, signal }, async (node) => {
    const answer = await ask(deps.lookup, node);
    if ("error" in answer) failures.push(`${node.metadata.name}: ${answer.error.message}`);
    await actOnNotReady(deps, node, answer);
  });
  // One line per pass, not one per Node: a cloud outage with thousands of NotReady Nodes stays readable.
  if (failures.length > 0)
    deps.logger.error(
      `could not check ${failures.length} NotReady node(s) in the cloud, none deleted; first: ${failures[0]}`,
    );
}

async function ask(lookup: InstanceLookup, node: Node): Promise<Answer<InstanceState>> {
  try {
    return { value: await lookup.state(node) };
  } catch (error) {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }
}

async function actOnNotReady(deps: LifecycleDeps, node: Node, answer: Answer<InstanceState>): Promise<void> {
  const uid = uidOf(node);
  const decision = decideNotReady(
    { node, answer, missingSince: deps.missingSince.get(uid), now: deps.clock.now() },
    deps.policy,
  );
  if (decision.missingSince === undefined) deps.missingSince.delete(uid);
  else deps.missingSince.set(uid, decision.missingSince);
  const name = node.metadata.name;
  switch (decision.action) {
    case "awaitConfirmation":
      deps.logger.info(
        `node ${name} does not exist in the cloud provider; deleting it if that is still so one monitor period from now`,
      );
      return;
    case "delete":
      return deleteNode(deps, node);
    case "addShutdownTaint":
      return patchTaints(deps, node, addShutdownTaintPatch);
    case "none":
      return;
  }
}

/** Errors are logged, not thrown: the next pass tries again. */
async function patchTaints(deps: LifecycleDeps, node: Node, build: (node: Node) => object | undefined): Promise<void> {
  try {
    await patchWithPrecondition({ api: deps.api, resource: NODES, from: node, build });
  } catch (error) {
    if (!isNotFound(error))
      deps.logger.error(`error patching the taints of node ${node.metadata.name}: ${errorMessage(error)}`);
  }
}

async function deleteNode(deps: LifecycleDeps, node: Node): Promise<void> {
  const name = node.metadata.name;
  const uid = node.metadata.uid;
  const current = deps.nodes.get(name);
  // The pass read the Node before asking the cloud; it may have become Ready or been replaced since.
  if (!current || current.metadata.uid !== uid || readyStatus(current) === "True") return;
  deps.logger.info(`deleting node ${name} since it is no longer present in the cloud provider`);
  deps.recorder.event(
    node,
    "Normal",
    "DeletingNode",
    `Deleting node ${name} because it does not exist in the cloud provider`,
  );
  try {
    await deps.api.delete(NODES, name, uid ? { preconditions: { uid } } : undefined);
  } catch (error) {
    if (isNotFound(error)) return;
    deps.logger.error(`unable to delete node ${JSON.stringify(name)}: ${errorMessage(error)}`);
    deps.recorder.event(node, "Warning", "DeletingNodeFailed", `Failed deleting node ${name}: ${errorMessage(error)}`);
  }
}
