/**
 * InstancesV2 from the inventory, single-node and batched; every answer comes from memory. A node no
 * machine matches is left alone by default: it exists (never deleted) and is not initialised.
 */
import { InstanceNotFoundError } from "../../src/cloud/errors.ts";
import type { Answer, InstanceMetadata, InstancesV2, InstanceState } from "../../src/cloud/provider.ts";
import type { Node } from "../../src/kube/objects.ts";
import { judgeNode, type Inventory, type Verdict } from "./inventory.ts";

/** In memory, so one batch can be as large as the controllers like. */
const MAX_BATCH_SIZE = 1000;

function notFound(node: Node, reason: string): InstanceNotFoundError {
  return new InstanceNotFoundError(`no instance for node ${node.metadata.name}: ${reason}`);
}

function metadataOf(node: Node, verdict: Verdict): InstanceMetadata | undefined {
  if (verdict.kind === "absent") throw notFound(node, verdict.reason);
  return verdict.kind === "present" ? verdict.metadata : undefined;
}

function stateOf(verdict: Verdict): InstanceState {
  if (verdict.kind === "absent") return { exists: false };
  return { exists: true, shutdown: verdict.kind === "present" && verdict.shutdown };
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

export function inventoryInstances(inventory: () => Inventory): InstancesV2 {
  const judge = (node: Node): Verdict => judgeNode(inventory(), node);
  return {
    instanceExists: (node) => later(() => stateOf(judge(node)).exists),
    instanceShutdown: (node) =>
      later(() => {
        const verdict = judge(node);
        if (verdict.kind === "absent") throw notFound(node, verdict.reason);
        return verdict.kind === "present" && verdict.shutdown;
      }),
    instanceMetadata: (node) => later(() => metadataOf(node, judge(node))),
    batch: {
      maxBatchSize: MAX_BATCH_SIZE,
      instanceMetadataBatch: (nodes) => later(() => nodes.map((node) => answer(() => metadataOf(node, judge(node))))),
      instanceStateBatch: (nodes) => later(() => nodes.map((node) => ({ value: stateOf(judge(node)) }))),
    },
  };
}
