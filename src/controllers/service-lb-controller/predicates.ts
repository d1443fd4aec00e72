/**
 * The service controller's pure decisions (upstream controllers/service/controller.go): which Services
 * it serves, when a change matters to the load balancer, and which Nodes back a load balancer.
 */
import type { LoadBalancerIngress, Node, Service, ServicePort } from "../../kube/objects.ts";
import {
  FINALIZER_LB_CLEANUP,
  LABEL_EXCLUDE_FROM_EXTERNAL_LB,
  TAINT_TO_BE_DELETED_BY_AUTOSCALER,
} from "../../kube/well-known.ts";

/**
 * `type: LoadBalancer` and no `loadBalancerClass` (upstream), or the class this manager was told to
 * serve with `--load-balancer-class` (`servedClass`; empty: classed Services are never served).
 */
export function wantsLoadBalancer(service: Service, servedClass: string): boolean {
  if (service.spec?.type !== "LoadBalancer") return false;
  const cls = service.spec.loadBalancerClass;
  return cls === undefined || cls === "" || (servedClass !== "" && cls === servedClass);
}

export function hasCleanupFinalizer(service: Service): boolean {
  return service.metadata.finalizers?.includes(FINALIZER_LB_CLEANUP) ?? false;
}

/** Our finalizer is on, and the Service is being deleted or no longer of type LoadBalancer. */
export function needsCleanup(service: Service): boolean {
  if (!hasCleanupFinalizer(service)) return false;
  return service.metadata.deletionTimestamp !== undefined || service.spec?.type !== "LoadBalancer";
}

function portEqualForLB(a: ServicePort, b: ServicePort): boolean {
  return (
    a.name === b.name &&
    a.protocol === b.protocol &&
    a.port === b.port &&
    a.nodePort === b.nodePort &&
    a.targetPort === b.targetPort &&
    a.appProtocol === b.appProtocol
  );
}

function portsEqualForLB(x: readonly ServicePort[], y: readonly ServicePort[]): boolean {
  return x.length === y.length && x.every((port, i) => portEqualForLB(port, y[i] as ServicePort));
}

const json = (value: unknown): string => JSON.stringify(value ?? null);

function listEqual(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  return json(a ?? []) === json(b ?? []);
}

/** Annotations compare as maps: key order does not matter, a missing map equals an empty one. */
function mapEqual(a: Readonly<Record<string, string>> = {}, b: Readonly<Record<string, string>> = {}): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
}

const annotationsEqual = (a: Service, b: Service): boolean => mapEqual(a.metadata.annotations, b.metadata.annotations);

type Spec = NonNullable<Service["spec"]>;

/** Spec fields a load balancer is built from (upstream `needsUpdate`, minus the wants-LB flip). */
const LB_SPEC_UNCHANGED: readonly ((x: Spec, y: Spec) => boolean)[] = [
  (x, y) => listEqual(x.loadBalancerSourceRanges, y.loadBalancerSourceRanges),
  (x, y) => portsEqualForLB(x.ports ?? [], y.ports ?? []),
  (x, y) => x.sessionAffinity === y.sessionAffinity && json(x.sessionAffinityConfig) === json(y.sessionAffinityConfig),
  (x, y) => (x.loadBalancerIP ?? "") === (y.loadBalancerIP ?? ""),
  (x, y) => listEqual(x.externalIPs, y.externalIPs),
  (x, y) => x.externalTrafficPolicy === y.externalTrafficPolicy,
  (x, y) => (x.healthCheckNodePort ?? 0) === (y.healthCheckNodePort ?? 0),
  // Families can only be added or removed, never swapped: the count is enough (as upstream).
  (x, y) => (x.ipFamilies ?? []).length === (y.ipFamilies ?? []).length,
];

function specChangedForLB(a: Service, b: Service): boolean {
  const x = a.spec ?? {};
  const y = b.spec ?? {};
  return !LB_SPEC_UNCHANGED.every((same) => same(x, y));
}

/**
 * Whether an update of a Service needs a sync. Selector, ipFamilyPolicy and status do not; any annotation
 * does, because providers read their options from annotations. Labels do only for a provider that reads
 * them (`LoadBalancer.readsServiceLabels`: pools chosen by serviceSelectors); upstream's never does.
 */
export function needsUpdate(
  oldService: Service,
  newService: Service,
  servedClass: string,
  readsLabels = false,
): boolean {
  const before = wantsLoadBalancer(oldService, servedClass);
  const after = wantsLoadBalancer(newService, servedClass);
  if (!before && !after) return false;
  if (before !== after) return true;
  return (
    specChangedForLB(oldService, newService) ||
    !annotationsEqual(oldService, newService) ||
    (readsLabels && !mapEqual(oldService.metadata.labels, newService.metadata.labels)) ||
    oldService.metadata.uid !== newService.metadata.uid
  );
}

/**
 * Go's strconv.ParseBool, which upstream uses for the exclusion label: anything else is "unparsable".
 */
function parseGoBool(text: string): boolean | undefined {
  if (["1", "t", "T", "TRUE", "true", "True"].includes(text)) return true;
  if (["0", "f", "F", "FALSE", "false", "False"].includes(text)) return false;
  return undefined;
}

/**
 * The exclusion label: absent or a false value includes the node; a true value, and anything that does
 * not parse (including empty), excludes it (upstream since v1.34, kubernetes/cloud-provider#73).
 */
export function excludedByLabel(node: Node): boolean {
  const value = node.metadata.labels?.[LABEL_EXCLUDE_FROM_EXTERNAL_LB];
  if (value === undefined) return false;
  return parseGoBool(value) !== false;
}

export function beingDeleted(node: Node): boolean {
  return node.metadata.deletionTimestamp !== undefined;
}

export function toBeDeletedByAutoscaler(node: Node): boolean {
  return node.spec?.taints?.some((t) => t.key === TAINT_TO_BE_DELETED_BY_AUTOSCALER) ?? false;
}

/**
 * Upstream `stableNodeSetPredicates`: readiness deliberately plays no part (KEP-3458), so flapping
 * nodes do not churn load balancer backends.
 */
export function includedInLoadBalancers(node: Node): boolean {
  return !beingDeleted(node) && !excludedByLabel(node) && !toBeDeletedByAutoscaler(node);
}

export function loadBalancerNodes(nodes: readonly Node[]): Node[] {
  return nodes.filter(includedInLoadBalancers);
}

/**
 * Whether a Node update can change any load balancer's backends: its inclusion flips, or its providerID
 * changes. Upstream watches only the exclusion label here; we evaluate every stable predicate, so an
 * autoscaler taint or a deletion timestamp takes the node out at once.
 */
export function shouldSyncUpdatedNode(oldNode: Node, newNode: Node): boolean {
  return (
    includedInLoadBalancers(oldNode) !== includedInLoadBalancers(newNode) ||
    (oldNode.spec?.providerID ?? "") !== (newNode.spec?.providerID ?? "")
  );
}

/** The node names with their providerIDs, sorted: equal for the same set in any order. */
export function nodeSetIdentity(nodes: readonly Node[]): string {
  return nodes
    .map((n) => `${n.metadata.name}\u0000${n.spec?.providerID ?? ""}`)
    .sort()
    .join("\n");
}

function normalIngress(ingress: LoadBalancerIngress): string {
  const ipMode = ingress.ip ? (ingress.ipMode ?? "VIP") : ingress.ipMode;
  return json({
    ip: ingress.ip ?? "",
    hostname: ingress.hostname ?? "",
    ipMode: ipMode ?? "",
    ports: ingress.ports ?? [],
  });
}

/**
 * Upstream compares `status.loadBalancer.ingress` semantically. The API server defaults `ipMode` to VIP
 * for IP ingress, so an unset mode equals VIP here; otherwise every sync would rewrite the status.
 */
export function ingressEqual(
  a: readonly LoadBalancerIngress[] | undefined,
  b: readonly LoadBalancerIngress[] | undefined,
): boolean {
  const x = (a ?? []).map(normalIngress);
  const y = (b ?? []).map(normalIngress);
  return x.length === y.length && x.every((v, i) => v === y[i]);
}
