import { runProviderConformance } from "../../test/conformance/provider-conformance.ts";
import type { Node } from "../../src/kube/objects.ts";
import { FakeCloud, parseFakeConfig } from "./index.ts";
import { createFakeProvider } from "./provider.ts";
import { serveFakeCloud } from "./server.ts";
import { testProviderContext } from "../../test/harness/provider-context.ts";

function fakeSession(remote: boolean) {
  return async () => {
    const parsed = parseFakeConfig("{}");
    if (!parsed.ok) throw new Error(parsed.errors.join("; "));
    const engine = new FakeCloud(parsed.config);
    const server = remote ? serveFakeCloud(engine) : undefined;
    const config = server ? { ...parsed.config, endpoint: `http://127.0.0.1:${server.port}` } : parsed.config;
    const provider = createFakeProvider({ config, path: "" }, testProviderContext(), engine);
    return {
      provider,
      cloud: {
        async createInstance(name: string): Promise<Node> {
          engine.putInstance(
            engine.instanceWithDefaults({ name, addresses: [{ type: "InternalIP", address: "10.1.2.3" }] }),
          );
          return { apiVersion: "v1", kind: "Node", metadata: { name }, spec: {} };
        },
        stopInstance: async (node: Node) => engine.setInstanceState(node.metadata.name, "stopped"),
        terminateInstance: async (node: Node) => engine.setInstanceState(node.metadata.name, "terminated"),
      },
      cleanup: async () => {
        await provider.close?.();
        await server?.stop(true);
      },
    };
  };
}

runProviderConformance({ name: "fake (in-process)", setup: fakeSession(false) });
runProviderConformance({ name: "fake (over HTTP)", setup: fakeSession(true) });
