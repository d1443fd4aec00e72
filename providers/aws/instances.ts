/**
 * InstancesV2 over EC2 with upstream's answers (cloud-provider-aws `instances_v2.go`): exists is false
 * only for a terminated or unknown instance, shutdown is true only for `stopped`, metadata carries the
 * providerID `aws:///<zone>/<id>`, type, zone, configured region, addresses and the zone-ID label.
 * The batched forms answer many nodes from one DescribeInstances per chunk.
 */
import { InstanceNotFoundError } from "../../src/cloud/errors.ts";
import type { Answer, InstanceMetadata, InstancesV2, InstanceState } from "../../src/cloud/provider.ts";
import type { Node } from "../../src/kube/objects.ts";
import type { IpFamily } from "./config.ts";
import { isGone, nodeAddresses, providerIDOf, type Ec2Instance } from "./ec2-instance.ts";
import type { Found, InstanceCache } from "./instance-cache.ts";
import { instancesOfNodes } from "./node-instances.ts";
import type { ZoneCache } from "./zones.ts";

export const ZONE_ID_LABEL = "topology.k8s.aws/zone-id";

export interface InstancesDeps {
  readonly cache: InstanceCache;
  readonly zones: ZoneCache;
  readonly region: () => Promise<string>;
  readonly families: readonly IpFamily[];
  readonly maxBatchSize: number;
}

function notFound(node: Node): InstanceNotFoundError {
  const id = node.spec?.providerID ? ` (${node.spec.providerID})` : "";
  return new InstanceNotFoundError(`no EC2 instance for node ${node.metadata.name}${id}`);
}

/** The live instance behind `node`; throws the lookup's error, or InstanceNotFoundError when gone. */
function live(node: Node, found: Found): Ec2Instance {
  if (found instanceof Error) throw found;
  if (found === undefined || isGone(found)) throw notFound(node);
  return found;
}

export function stateOf(found: Found): InstanceState {
  if (found instanceof Error) throw found;
  if (found === undefined || isGone(found)) return { exists: false };
  return { exists: true, shutdown: found.state === "stopped" };
}

function answer<T>(compute: () => T): Answer<T> {
  try {
    return { value: compute() };
  } catch (error) {
    return { error: error as Error };
  }
}

export function awsInstances(deps: InstancesDeps): InstancesV2 {
  const one = async (node: Node, signal?: AbortSignal): Promise<Found> =>
    (await instancesOfNodes(deps.cache, [node], signal))[0];

  async function metadataOf(instance: Ec2Instance, region: string, signal?: AbortSignal): Promise<InstanceMetadata> {
    const zoneID = await deps.zones.zoneID(instance.zone, signal);
    return {
      providerID: providerIDOf(instance),
      instanceType: instance.instanceType,
      nodeAddresses: nodeAddresses(instance, deps.families),
      zone: instance.zone,
      region,
      additionalLabels: zoneID ? { [ZONE_ID_LABEL]: zoneID } : {},
    };
  }

  return {
    async instanceExists(node, signal) {
      return stateOf(await one(node, signal)).exists;
    },
    async instanceShutdown(node, signal) {
      const found = await one(node, signal);
      if (found !== undefined && !(found instanceof Error) && isGone(found)) return false;
      return live(node, found).state === "stopped";
    },
    async instanceMetadata(node, signal) {
      const instance = live(node, await one(node, signal));
      return metadataOf(instance, await deps.region(), signal);
    },
    batch: {
      maxBatchSize: deps.maxBatchSize,
      async instanceMetadataBatch(nodes, signal) {
        const found = await instancesOfNodes(deps.cache, nodes, signal);
        const region = await deps.region();
        return Promise.all(
          nodes.map(async (node, i): Promise<Answer<InstanceMetadata>> => {
            try {
              return { value: await metadataOf(live(node, found[i]), region, signal) };
            } catch (error) {
              return { error: error as Error };
            }
          }),
        );
      },
      async instanceStateBatch(nodes, signal) {
        const found = await instancesOfNodes(deps.cache, nodes, signal);
        return found.map((f) => answer(() => stateOf(f)));
      },
    },
  };
}
