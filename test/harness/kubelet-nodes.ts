/**
 * Shared steps of the real-kubelet end-to-end tests: a test bed (control plane, Node history, kubelet
 * host, the compiled manager), kubelets that report their status every 2 s (so a test window holds
 * several kubelet writes after the manager's), and the checks on what kubelet registered.
 */
import { expect } from "bun:test";
import type { ControlPlane } from "../../scripts/control-plane/control-plane.ts";
import type { Kubelet, KubeletHost } from "../../scripts/control-plane/kubelet.ts";
import { NODES } from "../../src/kube/api.ts";
import type { Node, NodeAddress } from "../../src/kube/objects.ts";
import {
  ANNOTATION_PROVIDED_NODE_IP,
  LABEL_INSTANCE_TYPE,
  LABEL_INSTANCE_TYPE_BETA,
  LABEL_REGION,
  LABEL_REGION_BETA,
  LABEL_ZONE,
  LABEL_ZONE_BETA,
  TAINT_UNINITIALIZED,
} from "../../src/kube/well-known.ts";
import { getNode, isInitialised, nodeEvents, type KubeEvent } from "../integration/nodes.ts";
import { lonelyBinary } from "./binary.ts";
import { startCcm, type CcmProcess } from "./ccm.ts";
import { controlPlane } from "./control-plane.ts";
import { startKubelets } from "./kubelet.ts";
import { nodeWrites, recordNodes, type NodeHistory } from "./node-history.ts";
import { eventually } from "./wait.ts";

/** kubelet posts its whole status every 2 s instead of on change or every 5 minutes. */
export const FREQUENT_STATUS = { nodeStatusUpdateFrequency: "2s", nodeStatusReportFrequency: "2s" } as const;

export interface KubeletBed {
  readonly cp: ControlPlane;
  readonly host: KubeletHost;
  readonly history: NodeHistory;
  /** Starts the compiled manager (from an otherwise empty directory) with these flags. */
  startManager(args: readonly string[]): CcmProcess;
  addKubelet(name: string, nodeIPs: readonly string[]): Promise<Kubelet>;
  stop(): Promise<void>;
}

export async function startKubeletBed(): Promise<KubeletBed> {
  const cp = await controlPlane();
  const history = await recordNodes(cp.admin);
  const host = await startKubelets(cp);
  const { dir, binary } = await lonelyBinary("ccm-kubelet-");
  const managers: CcmProcess[] = [];
  return {
    cp,
    host,
    history,
    startManager(args) {
      const ccm = startCcm({ binary, cwd: dir, env: { PATH: "/usr/bin:/bin" }, args });
      managers.push(ccm);
      return ccm;
    },
    addKubelet: (name, nodeIPs) => host.addKubelet({ name, nodeIPs, config: FREQUENT_STATUS }),
    async stop() {
      history.stop();
      for (const ccm of managers) await ccm.stop("SIGTERM").catch(() => ccm.stop("SIGKILL").catch(() => 0));
      await host.stop();
    },
  };
}

/**
 * What kubelet `--cloud-provider=external --node-ip=…` registers, read from the node's first version
 * (kubelet answers /healthz a moment before it registers).
 */
export async function expectKubeletRegistration(
  history: NodeHistory,
  name: string,
  nodeIPs: readonly string[],
): Promise<Node> {
  const node = await eventually(`node ${name} registered`, () => history.versions(name)[0]);
  expect(node.spec?.taints).toEqual([{ key: TAINT_UNINITIALIZED, value: "true", effect: "NoSchedule" }]);
  expect(node.spec?.providerID).toBeUndefined();
  expect(node.metadata.annotations?.[ANNOTATION_PROVIDED_NODE_IP]).toBe(nodeIPs.join(","));
  const internal = nodeIPs.map((ip): NodeAddress => ({ type: "InternalIP", address: ip }));
  expect(node.status?.addresses).toEqual([...internal, { type: "Hostname", address: name }]);
  return node;
}

export async function waitInitialised(
  cp: ControlPlane,
  name: string,
  addresses: readonly NodeAddress[],
  timeoutMs = 60_000,
): Promise<Node> {
  return eventually(
    `node ${name} initialised with ${addresses.length} address(es)`,
    async () => {
      const node = await getNode(cp, name);
      return isInitialised(node) && node?.status?.addresses?.length === addresses.length && node;
    },
    timeoutMs,
  );
}

/** Waits until kubelet has written the node's status `count` times since `since` (audit log). */
export async function waitForKubeletWrites(
  cp: ControlPlane,
  name: string,
  since: number,
  count: number,
): Promise<void> {
  const user = `system:node:${name}`;
  await eventually(
    `${count} status write(s) by kubelet ${name}`,
    () => nodeWrites(cp.auditLog, name, since).filter((w) => w.startsWith(`${user} `)).length >= count,
    60_000,
    250,
  );
}

export function isReady(node: Node | undefined): boolean {
  return node?.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;
}

/** The fields the controllers own or read, to compare a node before and after something happened. */
export function managedFields(node: Node | undefined): unknown {
  return {
    providerID: node?.spec?.providerID,
    taints: node?.spec?.taints ?? [],
    labels: node?.metadata.labels,
    annotations: node?.metadata.annotations,
    addresses: node?.status?.addresses,
  };
}

/** The labels initialisation adds for a zone, region and instance type (GA and beta keys). */
export function cloudLabels(zone: string, region: string, instanceType: string): Record<string, string> {
  return {
    [LABEL_ZONE]: zone,
    [LABEL_ZONE_BETA]: zone,
    [LABEL_REGION]: region,
    [LABEL_REGION_BETA]: region,
    [LABEL_INSTANCE_TYPE]: instanceType,
    [LABEL_INSTANCE_TYPE_BETA]: instanceType,
  };
}

/** The node's Events from the manager's controllers (kubelet posts its own: Starting, NodeReady, …). */
export async function managerEvents(cp: ControlPlane, name: string): Promise<KubeEvent[]> {
  return (await nodeEvents(cp, name)).filter((e) => e.source.component !== "kubelet");
}

/** The manager's Synced Events on the node, once there is one (it is posted after the Node's update). */
export async function syncedEvents(cp: ControlPlane, name: string): Promise<KubeEvent[]> {
  return eventually(`Synced event for ${name}`, async () => {
    const synced = (await managerEvents(cp, name)).filter((e) => e.reason === "Synced");
    return synced.length > 0 && synced;
  });
}

/**
 * Ready Unknown, as kube-controller-manager's node lifecycle controller writes it once kubelet stops posting
 * status (there is no kube-controller-manager here).
 */
export async function markStatusUnknown(cp: ControlPlane, name: string): Promise<void> {
  const stamp = `${new Date().toISOString().slice(0, 19)}Z`;
  const unknown = {
    type: "Ready",
    status: "Unknown",
    reason: "NodeStatusUnknown",
    message: "Kubelet stopped posting node status.",
    lastHeartbeatTime: stamp,
    lastTransitionTime: stamp,
  };
  await cp.admin.patch(
    NODES,
    name,
    { status: { conditions: [unknown] } },
    { subresource: "status", type: "strategic" },
  );
}
