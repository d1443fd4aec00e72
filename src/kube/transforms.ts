/**
 * Cache transforms: keep only the fields some controller or provider reads. At 10,000 nodes most of a
 * Node's bytes are images, capacity, node info and managedFields, none of which a CCM needs.
 */
import type { Node, NodeCondition, ObjectMeta, Service } from "./objects.ts";

/** The only conditions any controller looks at. */
const KEPT_CONDITIONS = new Set(["Ready", "NetworkUnavailable"]);
const DROPPED_ANNOTATIONS = ["kubectl.kubernetes.io/last-applied-configuration"];

function trimMeta(meta: ObjectMeta): ObjectMeta {
  const out: ObjectMeta = { name: meta.name };
  if (meta.namespace) out.namespace = meta.namespace;
  if (meta.uid) out.uid = meta.uid;
  if (meta.resourceVersion) out.resourceVersion = meta.resourceVersion;
  if (meta.creationTimestamp) out.creationTimestamp = meta.creationTimestamp;
  if (meta.deletionTimestamp) out.deletionTimestamp = meta.deletionTimestamp;
  if (meta.labels) out.labels = meta.labels;
  if (meta.annotations) out.annotations = trimAnnotations(meta.annotations);
  if (meta.finalizers) out.finalizers = meta.finalizers;
  return out;
}

function trimAnnotations(annotations: Record<string, string>): Record<string, string> {
  if (!DROPPED_ANNOTATIONS.some((key) => key in annotations)) return annotations;
  const copy = { ...annotations };
  for (const key of DROPPED_ANNOTATIONS) delete copy[key];
  return copy;
}

/** Of the node info, only the system UUID (a provider may find the node's machine by it). */
function systemUuidOf(node: Node): Pick<NonNullable<Node["status"]>, "nodeInfo"> {
  const systemUUID = node.status?.nodeInfo?.systemUUID;
  return systemUUID ? { nodeInfo: { systemUUID } } : {};
}

/**
 * A kept condition without its heartbeat time: no controller reads it, and without it a status heartbeat
 * (kubelet's, every few minutes per Node) trims to the Node already cached, differing only in its
 * resourceVersion, which controller threads then need not be sent (kube/informer-mirror.ts).
 */
function withoutHeartbeat(condition: NodeCondition): NodeCondition {
  if (condition.lastHeartbeatTime === undefined) return condition;
  const { lastHeartbeatTime: _, ...rest } = condition;
  return rest;
}

export function trimNode(node: Node): Node {
  const spec = node.spec ?? {};
  const conditions: NodeCondition[] | undefined = node.status?.conditions
    ?.filter((c) => KEPT_CONDITIONS.has(c.type))
    .map(withoutHeartbeat);
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: trimMeta(node.metadata),
    spec: {
      providerID: spec.providerID,
      podCIDR: spec.podCIDR,
      podCIDRs: spec.podCIDRs,
      taints: spec.taints,
      unschedulable: spec.unschedulable,
    },
    status: { addresses: node.status?.addresses, conditions, ...systemUuidOf(node) },
  };
}

export function trimService(service: Service): Service {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: trimMeta(service.metadata),
    spec: service.spec,
    // Conditions: a provider may report on the Service there (bare metal: addresses kept outside the pools).
    status: {
      loadBalancer: service.status?.loadBalancer,
      ...(service.status?.conditions ? { conditions: service.status.conditions } : {}),
    },
  };
}
