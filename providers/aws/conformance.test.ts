import { runProviderConformance } from "../../test/conformance/provider-conformance.ts";
import type { Lister } from "../../src/kube/informer.ts";
import type { Node } from "../../src/kube/objects.ts";
import { awsTestCloud, awsTestProvider } from "../../test/harness/aws-cloud.ts";

/** The Node cache a manager would hand the provider: here, the Nodes the conformance cloud registered. */
function listerOf(nodes: Map<string, Node>): Lister<Node> {
  return {
    get: (key) => nodes.get(key),
    list: () => [...nodes.values()],
    get size() {
      return nodes.size;
    },
  };
}

runProviderConformance({
  name: "aws (moto)",
  timeoutMs: 120_000,
  skip: {
    loadBalancerDualStack: "classic ELBs answer with a DNS name, never with IP addresses of either family",
  },
  async setup() {
    const cloud = await awsTestCloud("conformance");
    const provider = awsTestProvider(cloud);
    const nodes = new Map<string, Node>();
    const byNode = new Map<string, string>();
    const stop = new AbortController();
    await provider.initialize?.({
      signal: stop.signal,
      nodes: listerOf(nodes),
      services: listerOf(new Map()) as never,
      waitForSync: () => Promise.resolve(true),
      kube: undefined as never,
    });
    return {
      provider,
      cloud: {
        async createInstance(name: string): Promise<Node> {
          const instance = await cloud.launch({ name });
          const node: Node = { apiVersion: "v1", kind: "Node", metadata: { name: instance.privateDnsName }, spec: {} };
          nodes.set(node.metadata.name, node);
          byNode.set(node.metadata.name, instance.id);
          return node;
        },
        stopInstance: (node: Node) => cloud.stop(byNode.get(node.metadata.name)!),
        terminateInstance: (node: Node) => cloud.terminate(byNode.get(node.metadata.name)!),
      },
      async cleanup() {
        stop.abort();
        await provider.close?.();
      },
    };
  },
});
