/**
 * The provider contract: the TypeScript form of upstream `cloudprovider.Interface` (k8s.io/cloud-provider
 * cloud.go) as the controllers use it. Every capability is optional; a controller checks for the ones it
 * needs when it is built, and is skipped with a log line when they are missing.
 *
 * Rules that hold for every method:
 * - Node and Service arguments are read-only views of cached objects. Never mutate them.
 * - Throw only the error classes of `errors.ts` where a method names one; any other error means
 *   "could not find out" and is retried. A failed, timed-out or throttled call must never be reported as
 *   an answer: a wrong "does not exist" deletes a healthy Node.
 * - Every method honours `signal` when given; the manager aborts it on shutdown.
 */
import type { EventRecorder } from "../kube/events.ts";
import type { KubeApi } from "../kube/api.ts";
import type { EventHandler, InformerView, Lister } from "../kube/informer.ts";
import type {
  KubeObject,
  LoadBalancerStatus,
  Manifest,
  Node,
  NodeAddress,
  PolicyRule,
  Service,
} from "../kube/objects.ts";
import type { Logger } from "../log/logger.ts";

export interface CloudProvider {
  /** The registered name (`--cloud-provider`); also the conventional providerID scheme `<name>://`. */
  readonly name: string;
  /** Present when the provider can describe instances (node and node-lifecycle controllers need it). */
  readonly instances?: InstancesV2;
  /** Present when the provider can run load balancers (service-lb-controller needs it). */
  readonly loadBalancer?: LoadBalancer;
  /** Present when the provider can program pod-CIDR routes (node-route-controller needs it). */
  readonly routes?: Routes;
  /**
   * Called once, on the leader only, before any controller starts (upstream `Initialize` and
   * `SetInformers`). A provider may start background work here; it must stop when `init.signal` aborts.
   */
  initialize?(init: ProviderInit): Promise<void>;
  /** Release sockets and timers. Called once on shutdown, on every replica. */
  close?(): Promise<void>;
  /**
   * For `cloud-controller-manager check`: one cheap, read-only cloud call that proves the endpoint is
   * reachable and the credentials are accepted (e.g. a describe of zero instances). Resolves to the
   * problems found, one sentence each naming what to fix; empty when fine. Must not change anything in
   * the cloud and must not throw for cloud errors (report them). Absent: `check` notes that this
   * provider has no preflight.
   */
  preflight?(signal: AbortSignal): Promise<string[]>;
  /**
   * Beyond upstream: called once on every replica of a leader-elected manager, leader or standby, as soon
   * as the API client exists and before the election. For state every replica publishes (e.g. which
   * configuration it loaded, so a leader can tell when replicas disagree). Work started here stops when
   * `replica.signal` aborts; its failures are the provider's to log, never fatal.
   */
  startReplica?(replica: ReplicaInit): void;
}

/** What `startReplica` gets: the manager's API client and who this replica is. */
export interface ReplicaInit {
  readonly kube: KubeApi;
  /** The Lease holder identity, `<hostname>_<uuid>`. */
  readonly identity: string;
  readonly hostname: string;
  readonly signal: AbortSignal;
}

/** Everything the cloud knows about the instance behind a Node (upstream `InstanceMetadata`). */
export interface InstanceMetadata {
  /**
   * `<provider>://<instance>`; stable for the life of the instance. Written to `spec.providerID` only when
   * the Node has none. Empty means "use the Node's own providerID"; if the Node has none either, the
   * node controller refuses to initialise it.
   */
  readonly providerID: string;
  /** Becomes `node.kubernetes.io/instance-type` (and the beta key). Empty: not set. */
  readonly instanceType: string;
  /** Written to `status.addresses`, after the provided-node-ip filter. Empty list: addresses untouched. */
  readonly nodeAddresses: readonly NodeAddress[];
  /** Becomes `topology.kubernetes.io/zone` (and the beta key). Empty: not set. */
  readonly zone: string;
  /** Becomes `topology.kubernetes.io/region` (and the beta key). Empty: not set. */
  readonly region: string;
  /** Extra labels; keys under kubernetes.io / k8s.io and keys the Node already has are skipped. */
  readonly additionalLabels?: Readonly<Record<string, string>>;
}

/** The answer the lifecycle controller acts on. `exists: false` deletes a NotReady Node. */
export type InstanceState = { readonly exists: false } | { readonly exists: true; readonly shutdown: boolean };

/** One answer of a batched lookup: a value, or the error for that node alone. */
export type Answer<T> = { readonly value: T } | { readonly error: Error };

/** Upstream `InstancesV2`: instances found by `spec.providerID` first, else by node name. */
export interface InstancesV2 {
  /**
   * False only when the cloud says definitely that the instance is gone (terminated, deleted). A stopped
   * or sleeping instance exists. Unknown → throw.
   */
  instanceExists(node: Node, signal?: AbortSignal): Promise<boolean>;
  /** True when the instance exists but is powered off / stopped. */
  instanceShutdown(node: Node, signal?: AbortSignal): Promise<boolean>;
  /**
   * Metadata used to initialise the Node. `undefined` means "skip this node for now, no error"
   * (upstream's nil metadata). Throw `InstanceNotFoundError` when there is no such instance.
   */
  instanceMetadata(node: Node, signal?: AbortSignal): Promise<InstanceMetadata | undefined>;
  /** Beyond upstream: optional batched forms; controllers use them when present. */
  readonly batch?: InstancesBatch;
}

/**
 * Beyond upstream: answer many nodes with one cloud call, so N nodes cost O(N / batch) calls instead of
 * O(N). Answer `i` belongs to `nodes[i]`; the per-node semantics equal the single-node methods (an
 * `InstanceNotFoundError` answer from `instanceMetadataBatch`, `{ exists: false }` only when definite).
 * Throw when the whole call failed.
 */
export interface InstancesBatch {
  /** The most nodes one call may carry. */
  readonly maxBatchSize: number;
  instanceMetadataBatch(
    nodes: readonly Node[],
    signal?: AbortSignal,
  ): Promise<readonly Answer<InstanceMetadata | undefined>[]>;
  instanceStateBatch(nodes: readonly Node[], signal?: AbortSignal): Promise<readonly Answer<InstanceState>[]>;
}

/** A non-fatal remark the service controller turns into a Warning event on the Service. */
export interface ServiceWarning {
  /** PascalCase event reason, e.g. `UnsupportedAnnotation`. */
  readonly reason: string;
  readonly message: string;
}

export interface EnsuredLoadBalancer {
  /** Written to `status.loadBalancer` when its ingress differs from the Service's. */
  readonly status: LoadBalancerStatus;
  readonly warnings?: readonly ServiceWarning[];
}

/**
 * Upstream `LoadBalancer`. `clusterName` is `--cluster-name`. `nodes` is the filtered backend set
 * (not being deleted, not excluded by label, not being removed by the cluster autoscaler).
 */
export interface LoadBalancer {
  /**
   * Beyond upstream: the provider hands out addresses from a table this process keeps (address pools),
   * not from the cloud. Two controller threads would keep two tables and could give one address to two
   * Services, so with `--controller-threads` the service-lb-controller runs on thread 0 alone.
   */
  readonly allocatesInProcess?: boolean;
  /**
   * Beyond upstream: the provider's answer depends on the Service's labels (address pools chosen by
   * serviceSelectors, as MetalLB's), so a change of labels alone syncs the Service again; upstream's
   * service controller ignores label changes.
   */
  readonly readsServiceLabels?: boolean;
  /**
   * The LB for this Service, if this controller created one (`exists: false` otherwise). Consulted only
   * before deletion and after a failed `updateLoadBalancer`.
   */
  getLoadBalancer(
    clusterName: string,
    service: Service,
    signal?: AbortSignal,
  ): Promise<{ status: LoadBalancerStatus; exists: boolean }>;
  /** The cloud name of the Service's LB; provider-internal, never called by the controller. */
  getLoadBalancerName(clusterName: string, service: Service): string;
  /**
   * Create or update the LB so it matches the Service and `nodes`. Throw `ImplementedElsewhereError` when
   * another controller owns this kind of LB, `RetryError` to be called again after a fixed delay, and a
   * plain error (its message reaches the Service's Warning event) for bad annotations.
   */
  ensureLoadBalancer(
    clusterName: string,
    service: Service,
    nodes: readonly Node[],
    signal?: AbortSignal,
  ): Promise<EnsuredLoadBalancer>;
  /** Point the existing LB at `nodes` (backends only). Same error rules as `ensureLoadBalancer`. */
  updateLoadBalancer(
    clusterName: string,
    service: Service,
    nodes: readonly Node[],
    signal?: AbortSignal,
  ): Promise<void>;
  /**
   * Delete the LB and everything created for it; resolve when it is gone, also when it never existed.
   * Must not throw `ImplementedElsewhereError`.
   */
  ensureLoadBalancerDeleted(clusterName: string, service: Service, signal?: AbortSignal): Promise<void>;
  /**
   * Beyond upstream (MetalLB re-processes every Service after a delete and after a pool change): for a
   * provider whose answers depend on more than the Service itself (addresses other Services hold, its own
   * pools, Namespace labels). It calls `listener` when that changed, so that Services may now be served,
   * or served differently; the service controller then queues the Services `change` names at once, ahead
   * of any retry backoff they wait out (one queue add per Service, however many changes come together).
   * `listener` may be called from within any method and from cache handlers: it only schedules work.
   * Returns the function that removes it.
   */
  onChange?(listener: (change: LoadBalancerChange) => void): () => void;
}

/** Which Services a `LoadBalancer.onChange` may affect; an empty object: every Service served. */
export interface LoadBalancerChange {
  /** Only Services in this namespace (e.g. its labels changed); absent: every namespace. */
  readonly namespace?: string;
  /**
   * Only Services still waiting: those whose last sync failed and those with fewer ingress addresses than
   * IP families (an address was freed). Absent or false: served ones too (e.g. the pools changed).
   */
  readonly waitingOnly?: boolean;
}

export interface Route {
  /** Provider-chosen; ignored on create. */
  readonly name: string;
  /** The Node name the route points at; empty when the provider cannot tell (such routes are deleted). */
  readonly targetNode: string;
  readonly destinationCIDR: string;
  /** The target is gone; the controller deletes blackholed routes inside the cluster CIDRs. */
  readonly blackhole: boolean;
  /** Set by providers whose routes follow node addresses: then an address change replaces the route. */
  readonly enableNodeAddresses?: boolean;
  readonly targetNodeAddresses?: readonly NodeAddress[];
}

/** Upstream `Routes`: pod-CIDR routes of this cluster. */
export interface Routes {
  /** Every route managed for `clusterName`, including blackholed ones. */
  listRoutes(clusterName: string, signal?: AbortSignal): Promise<readonly Route[]>;
  /**
   * Create a route to `route.targetNode` for `route.destinationCIDR`. `nameHint` is the Node UID, the same
   * for both families of a dual-stack node; the provider makes names unique per CIDR.
   * Beyond upstream: may resolve with the route as `listRoutes` will report it (its name above all), so
   * the controller can delete it again before its next `listRoutes`; otherwise such a delete waits for it.
   */
  createRoute(clusterName: string, nameHint: string, route: Route, signal?: AbortSignal): Promise<Route | void>;
  /** Delete a route as returned by `listRoutes`; resolve if it is already gone. */
  deleteRoute(clusterName: string, route: Route, signal?: AbortSignal): Promise<void>;
}

/** What a provider gets on the leader: the shared caches and an API client (upstream clientBuilder). */
export interface ProviderInit {
  readonly signal: AbortSignal;
  /** The manager's shared caches; read-only. Wait for `waitForSync` before trusting them. */
  readonly nodes: Lister<Node>;
  readonly services: Lister<Service>;
  waitForSync(signal: AbortSignal): Promise<boolean>;
  /** For providers that must write to the cluster themselves (their RBAC needs documenting). */
  readonly kube: KubeApi;
  /**
   * Beyond upstream (upstream hands providers the informer factory): `handler` is told of every change of
   * the Service cache, synchronously as it applies, for a provider whose own state follows what Services
   * show (the address pools free an address once no Service shows it). Returns the function that removes
   * it; remove it when `signal` aborts.
   */
  addServiceHandler?(handler: EventHandler<Service>): () => void;
  /**
   * Beyond upstream: the cluster's Namespaces (name and labels only), from an informer this process starts
   * on the first call and runs until `signal` aborts; every call returns the same view. A provider that
   * never calls it costs no watch; one that does lists in `rbacRules` namespaces list and watch. It is
   * offered only where load balancers are ensured (absent on a controller thread without the service
   * controller); a thread that calls it runs its own informer (the caches mirrored to threads are Nodes
   * and Services only).
   */
  namespaces?(): InformerView<KubeObject>;
  /** Beyond upstream: adds a check to `/readyz` only; a failing one marks the manager not ready, never restarts it. */
  addReadinessCheck?(name: string, check: () => string | undefined): void;
  /**
   * Beyond upstream: events about the provider's own objects (e.g. a Warning on a custom resource it cannot
   * read), sent as the manager's identity with component `cloud-controller-manager`. With
   * `--controller-threads` only thread 0 gets one, so each event is sent once, not once per thread.
   */
  readonly recorder?: EventRecorder;
  /** Who leads, when leader election is on: the Lease holder identity, the host name and the Lease. */
  readonly replica?: {
    readonly identity: string;
    readonly hostname: string;
    readonly lease?: { readonly namespace: string; readonly name: string };
  };
}

/** What a provider factory gets besides its own configuration. */
export interface ProviderContext {
  readonly logger: Logger;
  readonly clusterName: string;
  /** The manager's own namespace (the Lease's, `--leader-elect-resource-namespace`), e.g. for credential Secrets. */
  readonly namespace: string;
  /** Reports one cloud API call; feeds the cloud call metrics. `outcome` is "success", "error" or "throttled". */
  readonly observeCall: (operation: string, seconds: number, outcome: CallOutcome) => void;
  /**
   * Sets `cloudprovider_configuration_drift`: 1 while this leader's configuration differs from the one the
   * last leader ran with and the provider refuses the moves that difference would cause.
   */
  readonly observeConfigurationDrift: (drifting: boolean) => void;
  /** The manager's environment (e.g. upstream vSphere's SKIP_NODE_DELETION), read once at its start. */
  readonly env: Readonly<Record<string, string | undefined>>;
}

export type CallOutcome = "success" | "error" | "throttled";

/**
 * A provider as registered, configured in two steps: `parseConfig` validates the cloud-config text (all
 * problems at once) on the main thread, and `create` builds the provider from the validated form, there
 * or in a worker thread.
 */
export interface ProviderFactory<C = unknown> {
  readonly name: string;
  /**
   * `text` is the `--cloud-config` file's content, undefined without the flag. The result must be plain
   * data (objects, arrays, strings, numbers, booleans; Maps at most): it is deep-frozen and, with
   * `--controller-threads`, posted to every thread by structured clone. No functions, no class instances.
   */
  parseConfig(text: string | undefined, path: string): { ok: true; config: C } | { ok: false; errors: string[] };
  /**
   * Builds the provider from what `parseConfig` returned, or from a structured clone of it. A factory
   * loads its provider's code here (a dynamic import), so a process holds the selected provider only:
   * the factory itself (name, `parseConfig`, permissions, CRDs) stays light to import.
   */
  create(config: C, context: ProviderContext): Promise<CloudProvider>;
  /**
   * Cluster-wide permissions this provider needs beyond the controllers' own (e.g. writing an annotation
   * its LB announcers read). `manifests rbac` grants them in a ClusterRole of their own.
   */
  readonly rbacRules?: readonly PolicyRule[];
  /** Permissions in the manager's own namespace (a Role there), e.g. reading credential Secrets. */
  readonly namespacedRbacRules?: readonly PolicyRule[];
  /** The CustomResourceDefinitions of the objects the provider reads and writes; `manifests crds` prints them. */
  readonly customResourceDefinitions?: readonly Manifest[];
  /**
   * True when the provider never offers `routes`, whatever its configuration (the conformance suite
   * holds it to that). The route controller then does not start, as upstream's ("does not support
   * routes"), so `manifests` and the chart need no `--cluster-cidr` for it. Left out: routes may exist.
   */
  readonly withoutRoutes?: boolean;
}
