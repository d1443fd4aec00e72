/**
 * The wire shape of the few Kubernetes objects the controllers read and write. These mirror the JSON
 * the API server sends (timestamps are RFC 3339 strings), so objects go from `JSON.parse` to the cache
 * without the per-object conversion pass that `@kubernetes/client-node`'s model classes need.
 * Only the fields some controller or provider reads are declared; informers drop the rest.
 */
export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
}

export type TaintEffect = "NoSchedule" | "PreferNoSchedule" | "NoExecute";

export interface Taint {
  key: string;
  value?: string;
  effect: TaintEffect;
  timeAdded?: string;
}

export type NodeAddressType = "Hostname" | "InternalIP" | "ExternalIP" | "InternalDNS" | "ExternalDNS";

export interface NodeAddress {
  type: NodeAddressType;
  address: string;
}

export type ConditionStatus = "True" | "False" | "Unknown";

export interface NodeCondition {
  type: string;
  status: ConditionStatus;
  reason?: string;
  message?: string;
  lastHeartbeatTime?: string;
  lastTransitionTime?: string;
}

export interface Node extends KubeObject {
  spec?: {
    providerID?: string;
    podCIDR?: string;
    podCIDRs?: string[];
    taints?: Taint[];
    unschedulable?: boolean;
  };
  status?: {
    addresses?: NodeAddress[];
    conditions?: NodeCondition[];
    /** Only `systemUUID` is kept in the cache: vSphere finds a node's VM by it, as upstream does. */
    nodeInfo?: { systemUUID?: string };
  };
}

export interface ServicePort {
  name?: string;
  protocol?: "TCP" | "UDP" | "SCTP";
  port: number;
  targetPort?: number | string;
  nodePort?: number;
  appProtocol?: string;
}

export interface LoadBalancerIngress {
  ip?: string;
  hostname?: string;
  ipMode?: "VIP" | "Proxy";
  ports?: { port: number; protocol: string; error?: string }[];
}

export interface LoadBalancerStatus {
  ingress?: LoadBalancerIngress[];
}

export interface Service extends KubeObject {
  spec?: {
    type?: "ClusterIP" | "NodePort" | "LoadBalancer" | "ExternalName";
    ports?: ServicePort[];
    selector?: Record<string, string>;
    clusterIP?: string;
    clusterIPs?: string[];
    externalIPs?: string[];
    loadBalancerIP?: string;
    loadBalancerSourceRanges?: string[];
    loadBalancerClass?: string;
    externalTrafficPolicy?: "Cluster" | "Local";
    internalTrafficPolicy?: "Cluster" | "Local";
    healthCheckNodePort?: number;
    sessionAffinity?: "None" | "ClientIP";
    sessionAffinityConfig?: { clientIP?: { timeoutSeconds?: number } };
    ipFamilies?: ("IPv4" | "IPv6")[];
    ipFamilyPolicy?: "SingleStack" | "PreferDualStack" | "RequireDualStack";
    allocateLoadBalancerNodePorts?: boolean;
  };
  status?: {
    loadBalancer?: LoadBalancerStatus;
    conditions?: Condition[];
  };
}

/** coordination.k8s.io/v1 Lease, the leader-election lock. */
export interface Lease extends KubeObject {
  spec?: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    acquireTime?: string;
    renewTime?: string;
    leaseTransitions?: number;
  };
}

/** Any Kubernetes object as a manifest to print or apply (RBAC, CustomResourceDefinitions, pods). */
export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

/** rbac.authorization.k8s.io/v1 PolicyRule. */
export interface PolicyRule {
  apiGroups: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
  verbs: string[];
}

/** `metav1.Condition`, as Services (and custom resources) carry them in their status. */
export interface Condition {
  type: string;
  status: ConditionStatus;
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number;
}

export interface ObjectReference {
  apiVersion?: string;
  kind: string;
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
}

/** `namespace/name` for namespaced objects, `name` for cluster-scoped ones (client-go's key). */
export function objectKey(obj: KubeObject): string {
  const { namespace, name } = obj.metadata;
  return namespace ? `${namespace}/${name}` : name;
}

export function splitKey(key: string): { namespace: string | undefined; name: string } {
  const slash = key.indexOf("/");
  return slash < 0
    ? { namespace: undefined, name: key }
    : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}
