/**
 * Node → EC2 instance, upstream's order: `spec.providerID` when set; else a resource-based node name
 * (`i-…`) is the instance ID; else the node name is the instance's private DNS name.
 */
import type { Node } from "../../src/kube/objects.ts";
import { instanceIDFromNodeName, instanceIDFromProviderID } from "./ec2-instance.ts";
import type { Found, InstanceCache } from "./instance-cache.ts";

export type NodeTarget = { readonly id: string } | { readonly dnsName: string } | { readonly error: Error };

export function nodeTarget(node: Node): NodeTarget {
  const providerID = node.spec?.providerID ?? "";
  if (providerID !== "") {
    const id = instanceIDFromProviderID(providerID);
    return id
      ? { id }
      : {
          error: new Error(
            `node ${node.metadata.name}: providerID ${JSON.stringify(providerID)} is not an AWS instance (aws:///<zone>/i-…)`,
          ),
        };
  }
  const id = instanceIDFromNodeName(node.metadata.name);
  return id ? { id } : { dnsName: node.metadata.name };
}

/** One lookup answer per node, in order, costing at most one call per kind of key and chunk. */
export async function instancesOfNodes(
  cache: InstanceCache,
  nodes: readonly Node[],
  signal?: AbortSignal,
): Promise<Found[]> {
  const targets = nodes.map(nodeTarget);
  const ids = targets.flatMap((t) => ("id" in t ? [t.id] : []));
  const names = targets.flatMap((t) => ("dnsName" in t ? [t.dnsName] : []));
  const [byId, byName] = await Promise.all([
    ids.length > 0 ? cache.byIds(ids, signal) : new Map<string, Found>(),
    names.length > 0 ? cache.byPrivateDnsNames(names, signal) : new Map<string, Found>(),
  ]);
  return targets.map((t) => {
    if ("error" in t) return t.error;
    return "id" in t ? byId.get(t.id) : byName.get(t.dnsName);
  });
}
