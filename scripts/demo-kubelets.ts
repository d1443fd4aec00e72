/**
 * The demo's nodes registered by real kubelets v1.36 (`--cloud-provider=external`, one containerd, each
 * kubelet in its own node sandbox so the machine is left as found), when this machine can run them;
 * otherwise the reason, and the demo registers hand-written Nodes instead. There is no kube-controller-manager,
 * so the demo hands out pod CIDRs itself, as its node-ipam controller would.
 */
import { ensureKubelet } from "./control-plane/kubelet-binary.ts";
import { checkKubeletSupport, hostNodeIPs } from "./control-plane/kubelet-support.ts";
import { startKubeletHost, type KubeletHost } from "./control-plane/kubelet.ts";
import type { ControlPlane } from "./control-plane/control-plane.ts";
import { NODES } from "../src/kube/api.ts";
import type { Node } from "../src/kube/objects.ts";
import { track } from "../test/harness/processes.ts";
import { eventually } from "../test/harness/wait.ts";

export interface DemoKubelets {
  /** The `--node-ip` of every kubelet: the host's own IPv4 address (kubelet refuses loopback). */
  readonly nodeIP: string;
  /** Starts a kubelet per name and resolves with their Nodes once all are registered, pod CIDRs set. */
  register(names: readonly string[]): Promise<Node[]>;
  stop(): Promise<void>;
}

/** Real kubelets against `cp`, or why this machine cannot run them. */
export async function startDemoKubelets(cp: ControlPlane): Promise<DemoKubelets | { reason: string }> {
  const support = await checkKubeletSupport(track);
  const nodeIP = hostNodeIPs().ipv4;
  if (!support.ok || !nodeIP) return { reason: support.ok ? "no IPv4 address for --node-ip" : support.reason };
  const binary = await ensureKubelet((line) => console.log(`[kubelet] ${line}`));
  const host = await startKubeletHost({ cluster: cp, binary, onSpawn: track });
  return { nodeIP, register: (names) => register(host, cp, nodeIP, names), stop: () => host.stop() };
}

async function register(
  host: KubeletHost,
  cp: ControlPlane,
  nodeIP: string,
  names: readonly string[],
): Promise<Node[]> {
  await Promise.all(names.map((name) => host.addKubelet({ name, nodeIPs: [nodeIP] })));
  const nodes = await eventually(
    "the kubelets' Nodes",
    async () => {
      const listed = (await cp.admin.list<Node>(NODES)).items.filter((n) => names.includes(n.metadata.name));
      return listed.length === names.length ? listed : undefined;
    },
    60_000,
  );
  for (const [i, node] of nodes.entries()) {
    const cidr = `10.244.${i}.0/24`;
    const patch = { spec: { podCIDR: cidr, podCIDRs: [cidr] } };
    await cp.admin.patch(NODES, node.metadata.name, patch, { type: "merge" });
  }
  return nodes;
}
