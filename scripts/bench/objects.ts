/**
 * The benchmark's objects. Nodes look like what kubelet `--cloud-provider=external` registers (capacity,
 * node info, a few images, the pressure conditions and Ready), so both managers cache realistic objects.
 * Node `bench-node-<i>` is the instance the fake clouds know by that name: providerID `fake://<name>`,
 * InternalIP 10.(100+i/65536).(i/256%256).(i%256) and its hostname (the Go reference derives the same).
 */
import type { Node, NodeAddress, NodeCondition, Service } from "../../src/kube/objects.ts";
import type { FakeInstance } from "../../providers/fake/config.ts";
import {
  LABEL_INSTANCE_TYPE,
  LABEL_INSTANCE_TYPE_BETA,
  LABEL_REGION,
  LABEL_REGION_BETA,
  LABEL_ZONE,
  LABEL_ZONE_BETA,
  TAINT_UNINITIALIZED,
} from "../../src/kube/well-known.ts";
import { KUBELET_CONDITIONS, KWOK_ANNOTATION, KWOK_ANNOTATION_VALUE } from "./kwok.ts";

export const NODE_PREFIX = "bench-node-";
/** Nodes registered during a run (the burst on a live cluster), so a tracker can watch only them. */
export const LABEL_BURST = "bench.cloud-controller-manager/burst";
/** The pod CIDRs of the route scenarios: a /26 per Node, room for 131,072 Nodes. */
export const CLUSTER_CIDR = "10.128.0.0/9";
export const LB_NAMESPACE = "default";
export const LB_PREFIX = "bench-lb-";
const INSTANCE = { instanceType: "fake.small", zone: "zone-a", region: "region-1" };

export const nodeName = (i: number): string => `${NODE_PREFIX}${i}`;

export function nodeIP(i: number): string {
  return `10.${100 + Math.floor(i / 65536)}.${Math.floor(i / 256) % 256}.${i % 256}`;
}

export function cloudAddresses(i: number): NodeAddress[] {
  return [
    { type: "InternalIP", address: nodeIP(i) },
    { type: "Hostname", address: nodeName(i) },
  ];
}

export function benchInstance(i: number): FakeInstance {
  return {
    name: nodeName(i),
    providerID: `fake://${nodeName(i)}`,
    ...INSTANCE,
    addresses: cloudAddresses(i),
    labels: {},
    state: "running",
  };
}

const STAMP = "2026-01-01T00:00:00Z";

const condition = ([type, status, reason, message]: (typeof KUBELET_CONDITIONS)[number]): NodeCondition => ({
  type,
  status,
  reason,
  message,
  lastHeartbeatTime: STAMP,
  lastTransitionTime: STAMP,
});

function kubeletStatus(i: number, addresses: NodeAddress[]): Record<string, unknown> {
  const resources = { cpu: "8", memory: "32Gi", pods: "110", "ephemeral-storage": "100Gi" };
  return {
    addresses,
    capacity: resources,
    allocatable: { ...resources, memory: "31Gi" },
    conditions: KUBELET_CONDITIONS.map(condition),
    daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
    nodeInfo: {
      machineID: `${i.toString(16).padStart(32, "0")}`,
      systemUUID: `uuid-${i}`,
      bootID: `boot-${i}`,
      kernelVersion: "6.8.0-1",
      osImage: "Debian GNU/Linux 12 (bookworm)",
      containerRuntimeVersion: "containerd://2.1.0",
      kubeletVersion: "v1.36.3",
      kubeProxyVersion: "",
      operatingSystem: "linux",
      architecture: "amd64",
    },
    images: Array.from({ length: 8 }, (_, k) => ({
      names: [
        `registry.example/team/image-${k}@sha256:${k.toString(16).padStart(64, "0")}`,
        `registry.example/team/image-${k}:v1.${k}`,
      ],
      sizeBytes: 10_000_000 * (k + 1),
    })),
  };
}

/** A Node as kubelet registers it: the uninitialized taint, no providerID, only its hostname as address. */
export function registeredNode(i: number): Node {
  const name = nodeName(i);
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: {
      name,
      labels: { "kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64" },
    },
    spec: { taints: [{ key: TAINT_UNINITIALIZED, value: "true", effect: "NoSchedule" }] },
    status: kubeletStatus(i, [{ type: "Hostname", address: name }]),
  } satisfies Node;
}

/** A Node some manager already initialised (providerID, cloud labels and addresses, no taint). */
export function initialisedNode(i: number): Node {
  const node = registeredNode(i);
  const cloudLabels = {
    [LABEL_INSTANCE_TYPE]: INSTANCE.instanceType,
    [LABEL_INSTANCE_TYPE_BETA]: INSTANCE.instanceType,
    [LABEL_ZONE]: INSTANCE.zone,
    [LABEL_ZONE_BETA]: INSTANCE.zone,
    [LABEL_REGION]: INSTANCE.region,
    [LABEL_REGION_BETA]: INSTANCE.region,
  };
  return {
    ...node,
    metadata: { ...node.metadata, labels: { ...node.metadata.labels, ...cloudLabels } },
    spec: { providerID: `fake://${nodeName(i)}`, taints: [] },
    status: kubeletStatus(i, cloudAddresses(i)),
  };
}

/** Initialised: the taint is gone, the providerID and the cloud's InternalIP are in place. */
export function isInitialised(node: Node): boolean {
  if (!node.spec?.providerID) return false;
  if ((node.spec.taints ?? []).some((t) => t.key === TAINT_UNINITIALIZED)) return false;
  return (node.status?.addresses ?? []).some((a) => a.type === "InternalIP");
}

export function lbService(i: number): Service {
  const name = `${LB_PREFIX}${i}`;
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name, namespace: LB_NAMESPACE },
    spec: {
      type: "LoadBalancer",
      selector: { app: name },
      ports: [{ name: "http", protocol: "TCP", port: 80, targetPort: 8080 }],
    },
  };
}

/** Node i's pod CIDR inside CLUSTER_CIDR (i from 1). */
export function podCIDR(i: number): string {
  const offset = (i - 1) * 64;
  return `10.${128 + Math.floor(offset / 65536)}.${Math.floor(offset / 256) % 256}.${offset % 256}/26`;
}

export interface NodeOptions {
  /** kwok manages it; its heartbeat time as given. */
  readonly lastHeartbeat?: string;
  /** spec.podCIDR(s) for the route controllers. */
  readonly podCIDR?: boolean;
  readonly labels?: Readonly<Record<string, string>>;
}

/** `node` with the kwok annotation and heartbeat time, a pod CIDR and extra labels as asked. */
export function withOptions(node: Node, i: number, o: NodeOptions): Node {
  const metadata = { ...node.metadata, labels: { ...node.metadata.labels, ...o.labels } };
  const spec = o.podCIDR ? { ...node.spec, podCIDR: podCIDR(i), podCIDRs: [podCIDR(i)] } : node.spec;
  if (o.lastHeartbeat === undefined) return { ...node, metadata, spec };
  const stamp = o.lastHeartbeat;
  const conditions = (node.status?.conditions ?? []).map((c) => ({ ...c, lastHeartbeatTime: stamp }));
  return {
    ...node,
    metadata: { ...metadata, annotations: { ...metadata.annotations, [KWOK_ANNOTATION]: KWOK_ANNOTATION_VALUE } },
    spec,
    status: { ...node.status, conditions },
  };
}

export const hasIngress = (service: Service): boolean => (service.status?.loadBalancer?.ingress ?? []).length > 0;
