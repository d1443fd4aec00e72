/**
 * Object builders, so a test case is a few lines. `kubeletNode` registers a Node as a real kubelet v1.36
 * with `--cloud-provider=external` does (test/e2e/kubelet.test.ts compares the two): the uninitialized
 * taint; the hostname, OS and architecture labels (GA and beta keys); the attach-detach annotation and,
 * when a node IP was given, the provided-node-ip annotation; addresses only from `--node-ip` plus the
 * hostname; and the pressure and Ready conditions, Ready False until kubelet's first status update.
 */
import type { Node, NodeAddress, NodeCondition, Service, ServicePort } from "../../src/kube/objects.ts";
import { ANNOTATION_PROVIDED_NODE_IP, TAINT_UNINITIALIZED } from "../../src/kube/well-known.ts";

export interface KubeletNodeOptions {
  readonly nodeIP?: string;
  readonly providerID?: string;
  readonly labels?: Record<string, string>;
  readonly podCIDRs?: readonly string[];
  /** Ready True as after kubelet's first status update; false or left out: as kubelet registers. */
  readonly ready?: boolean;
  readonly uninitialized?: boolean;
}

/** kubelet's `kubernetes.io/arch` label: Go's name for this machine's architecture. */
export const KUBELET_ARCH =
  ({ x64: "amd64", ppc64: "ppc64le" } as Record<string, string>)[process.arch] ?? process.arch;

/** The annotation kubelet sets when the attach/detach controller manages the node's volumes (default). */
const ANNOTATION_ATTACH_DETACH = "volumes.kubernetes.io/controller-managed-attach-detach";

export function kubeletNode(name: string, o: KubeletNodeOptions = {}): Node {
  const ips = o.nodeIP ? o.nodeIP.split(",") : [];
  const addresses: NodeAddress[] = [
    ...ips.map((address) => ({ type: "InternalIP" as const, address })),
    { type: "Hostname", address: name },
  ];
  const os = { "kubernetes.io/os": "linux", "beta.kubernetes.io/os": "linux" };
  const arch = { "kubernetes.io/arch": KUBELET_ARCH, "beta.kubernetes.io/arch": KUBELET_ARCH };
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: {
      name,
      labels: { "kubernetes.io/hostname": name, ...os, ...arch, ...o.labels },
      annotations: {
        [ANNOTATION_ATTACH_DETACH]: "true",
        ...(o.nodeIP ? { [ANNOTATION_PROVIDED_NODE_IP]: o.nodeIP } : {}),
      },
    },
    spec: {
      ...(o.providerID ? { providerID: o.providerID } : {}),
      ...(o.podCIDRs ? { podCIDR: o.podCIDRs[0], podCIDRs: [...o.podCIDRs] } : {}),
      taints: o.uninitialized === false ? [] : [{ key: TAINT_UNINITIALIZED, value: "true", effect: "NoSchedule" }],
    },
    status: { addresses, conditions: [...pressureConditions(), readyCondition(o.ready ?? false)] },
  };
}

/** The conditions kubelet reports besides Ready, on a healthy machine. */
function pressureConditions(now = new Date()): NodeCondition[] {
  const stamp = `${now.toISOString().slice(0, 19)}Z`;
  const condition = (type: string, reason: string, message: string): NodeCondition => ({
    type,
    status: "False",
    reason,
    message,
    lastHeartbeatTime: stamp,
    lastTransitionTime: stamp,
  });
  return [
    condition("MemoryPressure", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
    condition("DiskPressure", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
    condition("PIDPressure", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
  ];
}

export function readyCondition(ready: boolean, now = new Date()): NodeCondition {
  const stamp = `${now.toISOString().slice(0, 19)}Z`;
  return {
    type: "Ready",
    status: ready ? "True" : "False",
    reason: ready ? "KubeletReady" : "KubeletNotReady",
    message: "set by test",
    lastHeartbeatTime: stamp,
    lastTransitionTime: stamp,
  };
}

export function loadBalancerService(
  name: string,
  namespace: string,
  o: {
    ports?: ServicePort[];
    annotations?: Record<string, string>;
    loadBalancerClass?: string;
    ipFamilies?: ("IPv4" | "IPv6")[];
  } = {},
): Service {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name, namespace, annotations: o.annotations ?? {} },
    spec: {
      type: "LoadBalancer",
      selector: { app: name },
      ports: o.ports ?? [{ name: "http", protocol: "TCP", port: 80, targetPort: 8080 }],
      ...(o.loadBalancerClass ? { loadBalancerClass: o.loadBalancerClass } : {}),
      ...(o.ipFamilies
        ? { ipFamilies: o.ipFamilies, ipFamilyPolicy: o.ipFamilies.length > 1 ? "RequireDualStack" : "SingleStack" }
        : {}),
    },
  };
}

let counter = 0;
/** A name unique within this test run (tests share one API server). */
export function uniqueName(prefix: string): string {
  counter += 1;
  return `${prefix}-${process.pid.toString(36)}-${counter}`;
}
