/**
 * Object builders, so a test case is a few lines. `kubeletNode` registers a Node the way kubelet with
 * `--cloud-provider=external` does: the uninitialized taint, addresses only from `--node-ip` (or none),
 * and the provided-node-ip annotation when a node IP was given.
 */
import type { Node, NodeAddress, NodeCondition, Service, ServicePort } from "../../src/kube/objects.ts";
import { ANNOTATION_PROVIDED_NODE_IP, TAINT_UNINITIALIZED } from "../../src/kube/well-known.ts";

export interface KubeletNodeOptions {
  readonly nodeIP?: string;
  readonly providerID?: string;
  readonly labels?: Record<string, string>;
  readonly podCIDRs?: readonly string[];
  readonly ready?: boolean;
  readonly uninitialized?: boolean;
}

export function kubeletNode(name: string, o: KubeletNodeOptions = {}): Node {
  const ips = o.nodeIP ? o.nodeIP.split(",") : [];
  const addresses: NodeAddress[] = [
    ...ips.map((address) => ({ type: "InternalIP" as const, address })),
    { type: "Hostname", address: name },
  ];
  const conditions: NodeCondition[] = o.ready === undefined ? [] : [readyCondition(o.ready)];
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: {
      name,
      labels: { "kubernetes.io/hostname": name, ...o.labels },
      annotations: o.nodeIP ? { [ANNOTATION_PROVIDED_NODE_IP]: o.nodeIP } : {},
    },
    spec: {
      ...(o.providerID ? { providerID: o.providerID } : {}),
      ...(o.podCIDRs ? { podCIDR: o.podCIDRs[0], podCIDRs: [...o.podCIDRs] } : {}),
      taints: o.uninitialized === false ? [] : [{ key: TAINT_UNINITIALIZED, value: "true", effect: "NoSchedule" }],
    },
    status: { addresses, conditions },
  };
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
