import type { Node } from "../../src/kube/objects.ts";
import { runProviderConformance } from "../../test/conformance/provider-conformance.ts";
import { startVcsim, type VcsimVm } from "../../test/harness/vcsim.ts";
import { patchRecorder, providerInit } from "../shared/address-pools/fixtures.test-support.ts";
import { nodeOf, vcsimProvider } from "./fixtures.test-support.ts";
import { vsphereProviderFactory } from "./index.ts";

const POOLS = `loadBalancers:
  pools:
    - { name: v4, addresses: [203.0.113.0/24] }
    - { name: v6, addresses: ["2001:db8:fa::/112"] }`;

/**
 * The conformance cloud is a vcsim: creating an instance hands out one of its VMs (a running VM with guest
 * info) as the Node a kubelet on it would register; stopping powers the VM off; terminating destroys it.
 */
async function vsphereSession() {
  const sim = await startVcsim({ vms: 16 });
  const provider = vcsimProvider(sim, POOLS);
  const stop = new AbortController();
  await provider.initialize?.(providerInit({ kube: patchRecorder().kube, signal: stop.signal }));
  const free = [...sim.vms];
  const byNode = new Map<string, VcsimVm>();
  const vmOf = (node: Node): VcsimVm => {
    const vm = byNode.get(node.metadata.name);
    if (!vm) throw new Error(`no VM handed out for ${node.metadata.name}`);
    return vm;
  };
  return {
    provider,
    cloud: {
      createInstance(name: string): Promise<Node> {
        const vm = free.shift();
        if (!vm) throw new Error("vcsim has no VM left; start it with more");
        byNode.set(name, vm);
        return Promise.resolve(nodeOf(vm, name));
      },
      stopInstance: (node: Node) => sim.powerOff(vmOf(node).uuid),
      terminateInstance: (node: Node) => sim.destroy(vmOf(node).uuid),
    },
    cleanup: async () => {
      stop.abort();
      await provider.close?.();
      await sim.stop();
    },
  };
}

/** Why the case that asks about a Node without providerID that no VM backs does not apply. */
const UNMATCHED =
  "a Node without providerID that no VM answers to is an error, never 'does not exist', as upstream's CPI " +
  "(a VM renamed or readdressed is not gone); vcsim.test.ts covers that error";

runProviderConformance({
  name: "vsphere",
  setup: vsphereSession,
  factory: vsphereProviderFactory,
  timeoutMs: 300_000,
  skip: {
    unknown: UNMATCHED,
    routes:
      "vSphere has no router API; upstream's routes are NSX-T's, which this provider does not implement; " +
      "pod routes belong to the CNI",
  },
});
