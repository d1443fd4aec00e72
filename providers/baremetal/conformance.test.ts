import type { Node } from "../../src/kube/objects.ts";
import { runProviderConformance } from "../../test/conformance/provider-conformance.ts";
import { testProviderContext } from "../../test/harness/provider-context.ts";
import { parseBaremetalConfig } from "./config.ts";
import { patchRecorder, providerInit } from "../shared/address-pools/fixtures.test-support.ts";
import { createBaremetalProvider } from "./provider.ts";
import { baremetalProviderFactory } from "./index.ts";

/**
 * The conformance cloud is the inventory: creating an instance adds a machine, stopping it marks it
 * `shutdown`, terminating it marks it `decommissioned`; each change is a live edit. Unmatched nodes are
 * gone here (`unmatchedNodes: delete`), as on a cloud; the default `leave` is covered by inventory.test.ts.
 */
async function baremetalSession() {
  const machines: Record<string, unknown>[] = [];
  const render = () => {
    const parsed = parseBaremetalConfig(
      JSON.stringify({
        inventory: {
          defaults: { region: "dc1", zone: "dc1-a", instanceType: "metal" },
          machines,
          unmatchedNodes: "delete",
        },
        loadBalancers: {
          pools: [
            { name: "v4", addresses: ["203.0.113.0/24"] },
            { name: "v6", addresses: ["2001:db8:fa::/112"] },
          ],
        },
      }),
    );
    if (!parsed.ok) throw new Error(parsed.errors.join("; "));
    return parsed.config;
  };
  const provider = createBaremetalProvider({ config: render(), path: "" }, testProviderContext());
  const stop = new AbortController();
  await provider.initialize?.(providerInit({ kube: patchRecorder().kube, signal: stop.signal }));
  const mark = (node: Node, field: "shutdown" | "decommissioned"): Promise<void> => {
    const machine = machines.find((m) => m.name === node.metadata.name);
    if (machine) machine[field] = true;
    provider.apply(render());
    return Promise.resolve();
  };
  return {
    provider,
    cloud: {
      createInstance(name: string): Promise<Node> {
        machines.push({ name, addresses: [{ type: "InternalIP", address: "10.1.2.3" }] });
        provider.apply(render());
        return Promise.resolve({ apiVersion: "v1", kind: "Node", metadata: { name }, spec: {} });
      },
      stopInstance: (node: Node) => mark(node, "shutdown"),
      terminateInstance: (node: Node) => mark(node, "decommissioned"),
    },
    cleanup: async () => {
      stop.abort();
      await provider.close?.();
    },
  };
}

runProviderConformance({
  name: "baremetal",
  setup: baremetalSession,
  factory: baremetalProviderFactory,
  skip: {
    routes:
      "bare metal has no router API to program; pod routes belong to the CNI (BGP, VXLAN), so the provider offers no Routes",
  },
});
