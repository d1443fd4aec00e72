/**
 * InstancesV2 from the inventory, single-node and batched. Metadata always comes from memory. Existence
 * and power state come from memory too, except for machines that name a BMC: those are asked through
 * `power` (cached and bounded per BMC, power-lookup.ts). A BMC that cannot say fails that node's lookup,
 * which the lifecycle controller answers by doing nothing for that node: no delete, no taint. A node no
 * machine matches is left alone by default: it exists (never deleted) and is not initialised.
 */
import { InstanceNotFoundError } from "../../src/cloud/errors.ts";
import type { Answer, InstanceMetadata, InstancesV2, InstanceState } from "../../src/cloud/provider.ts";
import type { Node } from "../../src/kube/objects.ts";
import { judgeNode, type Inventory, type Verdict } from "./inventory.ts";
import type { PowerOf } from "./power-lookup.ts";
import { stateFromPower } from "./power-state.ts";

/** In memory (BMC questions are bounded per BMC below this), so one batch can be as large as the controllers like. */
const MAX_BATCH_SIZE = 1000;

function notFound(node: Node, reason: string): InstanceNotFoundError {
  return new InstanceNotFoundError(`no instance for node ${node.metadata.name}: ${reason}`);
}

/** "Could not find out": a plain error, which the controllers retry and never take for "gone". */
function unknown(node: Node, reason: string): Error {
  return new Error(`nothing is known about node ${node.metadata.name} yet: ${reason}`);
}

function metadataOf(node: Node, verdict: Verdict): InstanceMetadata | undefined {
  if (verdict.kind === "absent") throw notFound(node, verdict.reason);
  if (verdict.kind === "unknown") throw unknown(node, verdict.reason);
  return verdict.kind === "present" ? verdict.metadata : undefined;
}

/** The state of one node: from the inventory, or from its BMC when the machine names one. */
async function stateOf(node: Node, verdict: Verdict, power?: PowerOf, signal?: AbortSignal): Promise<InstanceState> {
  if (verdict.kind === "absent") return { exists: false };
  if (verdict.kind === "unknown") throw unknown(node, verdict.reason);
  if (verdict.kind === "unlisted") return { exists: true, shutdown: false };
  if (!verdict.bmc || !power) return { exists: true, shutdown: verdict.shutdown };
  const what = `node ${node.metadata.name} (BMC ${verdict.bmc.address})`;
  return stateFromPower(await power(verdict.bmc, signal), what);
}

/** A promise of `compute()`: a throw becomes a rejection. */
const later = <T>(compute: () => T): Promise<T> => new Promise((resolve) => resolve(compute()));

function answer<T>(compute: () => T): Answer<T> {
  try {
    return { value: compute() };
  } catch (error) {
    return { error: error as Error };
  }
}

/** `power` answers for machines with a `bmc`; without it, their hand-set `shutdown` is used. */
export function inventoryInstances(inventory: () => Inventory, power?: PowerOf): InstancesV2 {
  const judge = (node: Node): Verdict => judgeNode(inventory(), node);
  const state = (node: Node, signal?: AbortSignal): Promise<InstanceState> =>
    later(() => judge(node)).then((verdict) => stateOf(node, verdict, power, signal));
  return {
    instanceExists: async (node, signal) => (await state(node, signal)).exists,
    instanceShutdown: async (node, signal) => {
      const found = await state(node, signal);
      if (!found.exists) {
        const verdict = judge(node);
        throw notFound(node, verdict.kind === "absent" ? verdict.reason : "the BMC has no such system (HTTP 404)");
      }
      return found.shutdown;
    },
    instanceMetadata: (node) => later(() => metadataOf(node, judge(node))),
    batch: {
      maxBatchSize: MAX_BATCH_SIZE,
      instanceMetadataBatch: (nodes) => later(() => nodes.map((node) => answer(() => metadataOf(node, judge(node))))),
      instanceStateBatch: (nodes, signal) =>
        Promise.all(
          nodes.map((node) =>
            state(node, signal).then(
              (value): Answer<InstanceState> => ({ value }),
              (error: unknown): Answer<InstanceState> => ({ error: error as Error }),
            ),
          ),
        ),
    },
  };
}
