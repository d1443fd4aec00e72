/** InstancesV2 over the fake cloud, single-node and batched. */
import { InstanceNotFoundError } from "../../src/cloud/errors.ts";
import type { Answer, InstanceMetadata, InstancesV2, InstanceState } from "../../src/cloud/provider.ts";
import type { Node } from "../../src/kube/objects.ts";
import type { FakeCloudApi } from "./api.ts";
import type { FakeInstance } from "./config.ts";
import type { NodeRef } from "./wire.ts";

type Found = FakeInstance | null;

const ref = (node: Node): NodeRef => ({ name: node.metadata.name, providerID: node.spec?.providerID || undefined });

function gone(found: Found): found is null {
  return found === null || found.state === "terminated";
}

function metadataOf(i: FakeInstance): InstanceMetadata {
  return {
    providerID: i.providerID,
    instanceType: i.instanceType,
    nodeAddresses: i.addresses,
    zone: i.zone,
    region: i.region,
    additionalLabels: i.labels,
  };
}

function notFound(node: Node): InstanceNotFoundError {
  return new InstanceNotFoundError(
    `no instance for node ${node.metadata.name}${node.spec?.providerID ? ` (${node.spec.providerID})` : ""}`,
  );
}

function stateOf(found: Found): InstanceState {
  return gone(found) ? { exists: false } : { exists: true, shutdown: found.state === "stopped" };
}

export function fakeInstances(api: FakeCloudApi, batching: { enabled: boolean; maxBatchSize: number }): InstancesV2 {
  const describe = async (operation: string, nodes: readonly Node[], signal?: AbortSignal): Promise<Found[]> =>
    (await api.call<{ instances: Found[] }>(operation, { nodes: nodes.map(ref) }, signal)).instances;
  const one = async (operation: string, node: Node, signal?: AbortSignal): Promise<Found> =>
    (await describe(operation, [node], signal))[0] ?? null;

  const instances: InstancesV2 = {
    async instanceExists(node, signal) {
      return !gone(await one("InstanceExists", node, signal));
    },
    async instanceShutdown(node, signal) {
      const found = await one("InstanceShutdown", node, signal);
      if (gone(found)) throw notFound(node);
      return found.state === "stopped";
    },
    async instanceMetadata(node, signal) {
      const found = await one("InstanceMetadata", node, signal);
      if (gone(found)) throw notFound(node);
      return metadataOf(found);
    },
  };
  if (!batching.enabled) return instances;
  return {
    ...instances,
    batch: {
      maxBatchSize: batching.maxBatchSize,
      async instanceMetadataBatch(nodes, signal): Promise<Answer<InstanceMetadata>[]> {
        const found = await describe("InstanceMetadataBatch", nodes, signal);
        return nodes.map((node, i) => {
          const f = found[i] ?? null;
          return gone(f) ? { error: notFound(node) } : { value: metadataOf(f) };
        });
      },
      async instanceStateBatch(nodes, signal): Promise<Answer<InstanceState>[]> {
        const found = await describe("InstanceStateBatch", nodes, signal);
        return nodes.map((_, i) => ({ value: stateOf(found[i] ?? null) }));
      },
    },
  };
}
