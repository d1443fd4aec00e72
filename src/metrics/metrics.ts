/**
 * Every metric the manager exports, with upstream's names and labels (k8s.io/cloud-provider controllers,
 * client-go workqueue / rest client / leader election), on one injected prom-client Registry. Collected
 * from the start; `/metrics` only renders the registry.
 */
import { Counter, Gauge, Histogram, Registry } from "./prom.ts";
import { LabelledCounter, LabelledHistogram } from "./bound.ts";
import { LAG_BUCKETS } from "./event-loop-lag.ts";

const exponential = (start: number, factor: number, count: number): number[] =>
  Array.from({ length: count }, (_, i) => start * factor ** i);

export interface Metrics {
  readonly registry: Registry;
  /** The `rest_client_*` series are observed once per API request: bound to their labels up front. */
  readonly restRequests: LabelledCounter<"code" | "method" | "host">;
  readonly restLatency: LabelledHistogram<"verb" | "host">;
  readonly restRateLimiter: LabelledHistogram<"verb" | "host">;
  readonly restRequestSize: LabelledHistogram<"verb" | "host">;
  readonly restResponseSize: LabelledHistogram<"verb" | "host">;
  readonly restRetries: LabelledCounter<"code" | "method" | "host">;
  readonly buildInfo: Gauge<BuildLabel>;
  readonly featureEnabled: Gauge<"name" | "stage">;
  readonly delegatedAuthnRequests: Counter<"code">;
  readonly delegatedAuthnLatency: Histogram<"code">;
  readonly delegatedAuthzRequests: Counter<"code">;
  readonly delegatedAuthzLatency: Histogram<"code">;
  readonly queueDepth: Gauge<"name">;
  readonly queueAdds: LabelledCounter<"name">;
  readonly queueLatency: LabelledHistogram<"name">;
  readonly workDuration: LabelledHistogram<"name">;
  /** Each running work queue's measurement of its in-flight work, taken when the gauges are scraped. */
  readonly inFlightReporters: Set<() => void>;
  readonly unfinishedWork: Gauge<"name">;
  readonly longestRunning: Gauge<"name">;
  readonly queueRetries: LabelledCounter<"name">;
  readonly cloudCalls: Counter<"provider" | "operation" | "outcome">;
  readonly cloudLatency: Histogram<"provider" | "operation">;
  readonly taintRemovalDelay: Histogram;
  readonly initialNodeSyncDelay: Histogram;
  readonly lbSyncs: Counter;
  readonly nodeSyncErrors: Counter;
  readonly nodeSyncLatency: Histogram;
  readonly updateHostLatency: Histogram;
  readonly routeSyncs: Counter;
  readonly leaderStatus: Gauge<"name">;
  readonly leaderSlowpath: Counter<"name">;
  readonly runningControllers: Gauge<"name" | "manager">;
  readonly eventsDropped: Counter<"reason">;
  readonly configurationDrift: Gauge<"provider">;
  readonly eventLoopLag: Histogram;
}

type BuildLabel =
  | "major"
  | "minor"
  | "git_version"
  | "git_commit"
  | "git_tree_state"
  | "build_date"
  | "go_version"
  | "compiler"
  | "platform";

/** client-go's buckets for request latency and rate-limiter waits, and for body sizes (64 B to 16 MiB). */
const LATENCY_BUCKETS = [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60];
const SIZE_BUCKETS = [64, 256, 512, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216];
/** k8s.io/apiserver's buckets for delegated TokenReviews and SubjectAccessReviews. */
const DELEGATED_BUCKETS = [0.25, 0.5, 0.7, 1, 1.5, 3, 5, 10];

/** `defaultMetrics`: adds the process-wide series to the registry (the main thread's, default-metrics.ts). */
export function createMetrics(options: { defaultMetrics?: (registry: Registry) => void } = {}): Metrics {
  const registry = new Registry();
  options.defaultMetrics?.(registry);
  const registers = [registry];
  const queueBuckets = exponential(1e-8, 10, 10);
  // Measured at scrape time, not on a timer: an idle manager then wakes for nothing (each wake of the
  // event loop costs a fraction of a millisecond of CPU).
  const inFlightReporters = new Set<() => void>();
  const measureInFlight = (): void => inFlightReporters.forEach((report) => report());
  return {
    registry,
    inFlightReporters,
    restRequests: new LabelledCounter({
      name: "rest_client_requests_total",
      help: "Number of HTTP requests, partitioned by status code, method, and host.",
      labelNames: ["code", "method", "host"],
      registers,
    }),
    restLatency: new LabelledHistogram({
      name: "rest_client_request_duration_seconds",
      help: "Request latency in seconds. Broken down by verb, and host.",
      labelNames: ["verb", "host"],
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    restRateLimiter: new LabelledHistogram({
      name: "rest_client_rate_limiter_duration_seconds",
      help: "Client side rate limiter latency in seconds. Broken down by verb, and host.",
      labelNames: ["verb", "host"],
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    restRequestSize: new LabelledHistogram({
      name: "rest_client_request_size_bytes",
      help: "Request size in bytes. Broken down by verb and host.",
      labelNames: ["verb", "host"],
      buckets: SIZE_BUCKETS,
      registers,
    }),
    restResponseSize: new LabelledHistogram({
      name: "rest_client_response_size_bytes",
      help: "Response size in bytes. Broken down by verb and host.",
      labelNames: ["verb", "host"],
      buckets: SIZE_BUCKETS,
      registers,
    }),
    restRetries: new LabelledCounter({
      name: "rest_client_request_retries_total",
      help: "Number of request retries, partitioned by status code, verb, and host.",
      labelNames: ["code", "method", "host"],
      registers,
    }),
    buildInfo: new Gauge({
      name: "kubernetes_build_info",
      help: "A metric with a constant '1' value labeled by major, minor, git version, git commit, git tree state, build date, Go version, and compiler from which Kubernetes was built, and platform on which it is running.",
      labelNames: [
        "major",
        "minor",
        "git_version",
        "git_commit",
        "git_tree_state",
        "build_date",
        "go_version",
        "compiler",
        "platform",
      ],
      registers,
    }),
    featureEnabled: new Gauge({
      name: "kubernetes_feature_enabled",
      help: "This metric records the data about the stage and enablement of a k8s feature.",
      labelNames: ["name", "stage"],
      registers,
    }),
    delegatedAuthnRequests: new Counter({
      name: "apiserver_delegated_authn_request_total",
      help: "Number of HTTP requests partitioned by status code.",
      labelNames: ["code"],
      registers,
    }),
    delegatedAuthnLatency: new Histogram({
      name: "apiserver_delegated_authn_request_duration_seconds",
      help: "Request latency in seconds. Broken down by status code.",
      labelNames: ["code"],
      buckets: DELEGATED_BUCKETS,
      registers,
    }),
    delegatedAuthzRequests: new Counter({
      name: "apiserver_delegated_authz_request_total",
      help: "Number of HTTP requests partitioned by status code.",
      labelNames: ["code"],
      registers,
    }),
    delegatedAuthzLatency: new Histogram({
      name: "apiserver_delegated_authz_request_duration_seconds",
      help: "Request latency in seconds. Broken down by status code.",
      labelNames: ["code"],
      buckets: DELEGATED_BUCKETS,
      registers,
    }),
    queueDepth: new Gauge({
      name: "workqueue_depth",
      help: "Current depth of workqueue",
      labelNames: ["name"],
      registers,
    }),
    queueAdds: new LabelledCounter({
      name: "workqueue_adds_total",
      help: "Total number of adds handled by workqueue",
      labelNames: ["name"],
      registers,
    }),
    queueLatency: new LabelledHistogram({
      name: "workqueue_queue_duration_seconds",
      help: "How long in seconds an item stays in workqueue before being requested.",
      labelNames: ["name"],
      buckets: queueBuckets,
      registers,
    }),
    workDuration: new LabelledHistogram({
      name: "workqueue_work_duration_seconds",
      help: "How long in seconds processing an item from workqueue takes.",
      labelNames: ["name"],
      buckets: queueBuckets,
      registers,
    }),
    unfinishedWork: new Gauge({
      name: "workqueue_unfinished_work_seconds",
      help: "How many seconds of work has done that is in progress and hasn't been observed by work_duration.",
      labelNames: ["name"],
      collect: measureInFlight,
      registers,
    }),
    longestRunning: new Gauge({
      name: "workqueue_longest_running_processor_seconds",
      help: "How many seconds has the longest running processor for workqueue been running.",
      labelNames: ["name"],
      // Merged over controller threads: the longest of them, not their sum.
      aggregator: "max",
      collect: measureInFlight,
      registers,
    }),
    queueRetries: new LabelledCounter({
      name: "workqueue_retries_total",
      help: "Total number of retries handled by workqueue",
      labelNames: ["name"],
      registers,
    }),
    cloudCalls: new Counter({
      name: "cloudprovider_api_requests_total",
      help: "Cloud API calls by provider, operation and outcome (success, error, throttled).",
      labelNames: ["provider", "operation", "outcome"],
      registers,
    }),
    cloudLatency: new Histogram({
      name: "cloudprovider_api_request_duration_seconds",
      help: "Latency of cloud API calls by provider and operation.",
      labelNames: ["provider", "operation"],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    }),
    taintRemovalDelay: new Histogram({
      name: "node_controller_cloud_provider_taint_removal_delay_seconds",
      help: "Number of seconds after node creation when NodeController removed the cloud-provider taint of a single node.",
      buckets: exponential(1, 4, 6),
      registers,
    }),
    initialNodeSyncDelay: new Histogram({
      name: "node_controller_initial_node_sync_delay_seconds",
      help: "Number of seconds after node creation when NodeController finished the initial synchronization of a single node.",
      buckets: exponential(1, 4, 6),
      registers,
    }),
    lbSyncs: new Counter({
      name: "service_controller_loadbalancer_sync_total",
      help: "A metric counting the amount of times any load balancer has been configured, as an effect of service/node changes on the cluster",
      registers,
    }),
    nodeSyncErrors: new Counter({
      name: "service_controller_nodesync_error_total",
      help: "A metric counting the amount of times any load balancer has been configured and errored, as an effect of node changes on the cluster",
      registers,
    }),
    nodeSyncLatency: new Histogram({
      name: "service_controller_nodesync_latency_seconds",
      help: "A metric measuring the latency for nodesync which updates loadbalancer hosts on cluster node updates.",
      buckets: exponential(1, 2, 15),
      registers,
    }),
    updateHostLatency: new Histogram({
      name: "service_controller_update_loadbalancer_host_latency_seconds",
      help: "A metric measuring the latency for updating each load balancer hosts.",
      buckets: exponential(1, 2, 15),
      registers,
    }),
    routeSyncs: new Counter({
      name: "route_controller_route_sync_total",
      help: "A metric counting the amount of times routes have been synced with the cloud provider.",
      registers,
    }),
    leaderStatus: new Gauge({
      name: "leader_election_master_status",
      help: "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease. Please make sure to group by name.",
      labelNames: ["name"],
      registers,
    }),
    leaderSlowpath: new Counter({
      name: "leader_election_slowpath_total",
      help: "Total number of slow path exercised in renewing leader leases. 'name' is the string used to identify the lease. Please make sure to group by name.",
      labelNames: ["name"],
      registers,
    }),
    runningControllers: new Gauge({
      name: "running_managed_controllers",
      help: "Indicates where instances of a controller are currently running",
      labelNames: ["name", "manager"],
      // A controller sharded over threads runs in each: merged, it is still one running controller.
      aggregator: "max",
      registers,
    }),
    configurationDrift: new Gauge({
      name: "cloudprovider_configuration_drift",
      help: "1 while the leader's cloud-config differs from the one the last leader ran with, so the provider refuses the address moves that difference would cause.",
      labelNames: ["provider"],
      // Every controller thread's provider reports it: merged, still 0 or 1.
      aggregator: "max",
      registers,
    }),
    eventLoopLag: new Histogram({
      name: "cloud_controller_manager_event_loop_lag_seconds",
      help: "How late a timer on the main thread fires (leader election, serving and the informers run there), sampled every 100 ms.",
      buckets: LAG_BUCKETS,
      registers,
    }),
    eventsDropped: new Counter({
      name: "cloud_controller_manager_events_dropped_total",
      help: "Events not sent to the API server, by reason (spam filter, full buffer, API error).",
      labelNames: ["reason"],
      registers,
    }),
  };
}
