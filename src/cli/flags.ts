/**
 * The manager's flags, named, defaulted and grouped like upstream `cloud-controller-manager`
 * (k8s.io/cloud-provider options, controller-manager generic options, apiserver serving/authn/authz
 * options, component-base logging). Values stay text here; `config.ts` turns them into typed settings.
 *
 * `status: "compat"` marks flags that parse for drop-in compatibility but change nothing; `--help` says so
 * and the manager warns once at start when one is set.
 */
export type FlagType = "string" | "bool" | "int" | "float" | "duration" | "list" | "enum";

export type FlagGroup =
  | "Cloud provider"
  | "Generic"
  | "Controllers"
  | "Leader election"
  | "Secure serving"
  | "Authentication"
  | "Authorization"
  | "Webhook serving"
  | "Logging"
  | "Beyond upstream";

export interface FlagSpec {
  readonly name: string;
  readonly type: FlagType;
  readonly default: string;
  readonly group: FlagGroup;
  readonly usage: string;
  readonly status?: "compat";
  readonly options?: readonly string[];
  readonly short?: string;
}

const f = (
  name: string,
  type: FlagType,
  def: string,
  group: FlagGroup,
  usage: string,
  extra: Partial<FlagSpec> = {},
): FlagSpec => ({ name, type, default: def, group, usage, ...extra });

const compat = { status: "compat" } as const;

const cloudFlags: FlagSpec[] = [
  f("cloud-provider", "string", "", "Cloud provider", "The provider for cloud services (required): fake, aws, baremetal."),
  f("cloud-config", "string", "", "Cloud provider", "The path to the cloud provider configuration file. Empty string for no configuration file."),
  f("cluster-name", "string", "kubernetes", "Cloud provider", "The instance prefix for the cluster."),
  f("cluster-cidr", "string", "", "Cloud provider", "CIDR range(s) for Pods in the cluster (one, or one IPv4 and one IPv6, comma-separated). Routes inside it are managed by the route controller."),
  f("configure-cloud-routes", "bool", "true", "Cloud provider", "Should CIDRs allocated by allocate-node-cidrs be configured on the cloud provider."),
  f("allocate-node-cidrs", "bool", "false", "Cloud provider", "Accepted for compatibility: pod CIDRs are allocated by kube-controller-manager.", compat),
  f("cidr-allocator-type", "string", "RangeAllocator", "Cloud provider", "Accepted for compatibility: pod CIDRs are allocated by kube-controller-manager.", compat),
  f("use-service-account-credentials", "bool", "false", "Cloud provider", "If true, use individual service account credentials for each controller."),
  f("allow-untagged-cloud", "bool", "false", "Cloud provider", "Accepted for compatibility (deprecated upstream).", compat),
  f("external-cloud-volume-plugin", "string", "", "Cloud provider", "Accepted for compatibility: not used by the cloud-controller-manager.", compat),
  f("node-sync-period", "duration", "0s", "Cloud provider", "Accepted for compatibility (deprecated no-op upstream).", compat),
  f("route-reconciliation-period", "duration", "10s", "Cloud provider", "The period for reconciling routes created for Nodes by the cloud provider."),
  f("node-monitor-period", "duration", "5s", "Cloud provider", "The period for syncing NodeStatus in the cloud node lifecycle controller."),
];

const genericFlags: FlagSpec[] = [
  f("controllers", "list", "*", "Generic", "Controllers to enable. '*' enables all on-by-default controllers, 'foo' enables 'foo', '-foo' disables 'foo'. All: cloud-node-controller, cloud-node-lifecycle-controller, node-route-controller, service-lb-controller."),
  f("kubeconfig", "string", "", "Generic", "Path to kubeconfig file with authorization and master location information (in-cluster config when neither this nor --master is set)."),
  f("master", "string", "", "Generic", "The address of the Kubernetes API server (overrides any value in kubeconfig)."),
  f("kube-api-qps", "float", "20", "Generic", "QPS to use while talking with kubernetes apiserver."),
  f("kube-api-burst", "int", "30", "Generic", "Burst to use while talking with kubernetes apiserver."),
  f("kube-api-content-type", "string", "application/vnd.kubernetes.protobuf", "Generic", "Accepted for compatibility: requests are always JSON.", compat),
  f("min-resync-period", "duration", "12h0m0s", "Generic", "Accepted for compatibility: informers rely on watches, not periodic resyncs.", compat),
  f("controller-start-interval", "duration", "0s", "Generic", "Interval between starting controller managers."),
  f("enable-leader-migration", "bool", "false", "Generic", "Accepted for compatibility: leader migration is not supported.", compat),
  f("leader-migration-config", "string", "", "Generic", "Accepted for compatibility: leader migration is not supported.", compat),
  f("profiling", "bool", "true", "Generic", "Accepted for compatibility: no profiling endpoints are served.", compat),
  f("contention-profiling", "bool", "false", "Generic", "Accepted for compatibility: no profiling endpoints are served.", compat),
  f("feature-gates", "string", "", "Generic", "Accepted for compatibility: comma-separated key=true|false pairs, validated but not used.", compat),
];

const controllerFlags: FlagSpec[] = [
  f("concurrent-node-syncs", "int", "1", "Controllers", "Number of workers concurrently synchronizing nodes."),
  f("concurrent-node-status-updates", "int", "0", "Controllers", "Number of workers concurrently updating node addresses; 0 uses --concurrent-node-syncs."),
  f("node-status-update-frequency", "duration", "5m0s", "Controllers", "How often the node controller refreshes node addresses from the cloud."),
  f("concurrent-service-syncs", "int", "1", "Controllers", "Number of services that are allowed to sync concurrently."),
];

const leaderFlags: FlagSpec[] = [
  f("leader-elect", "bool", "true", "Leader election", "Start a leader election client and gain leadership before executing the main loop."),
  f("leader-elect-lease-duration", "duration", "15s", "Leader election", "How long non-leaders wait after the last observed renewal before trying to take the lease."),
  f("leader-elect-renew-deadline", "duration", "10s", "Leader election", "How long the leader keeps trying to renew before it stops leading."),
  f("leader-elect-retry-period", "duration", "2s", "Leader election", "How long clients wait between attempts to acquire and renew leadership."),
  f("leader-elect-resource-lock", "enum", "leases", "Leader election", "The type of resource object used for locking (only 'leases').", { options: ["leases"] }),
  f("leader-elect-resource-name", "string", "cloud-controller-manager", "Leader election", "The name of the Lease used for locking."),
  f("leader-elect-resource-namespace", "string", "kube-system", "Leader election", "The namespace of the Lease used for locking."),
];

const servingFlags: FlagSpec[] = [
  f("bind-address", "string", "0.0.0.0", "Secure serving", "The IP address on which to listen for the --secure-port port."),
  f("secure-port", "int", "10258", "Secure serving", "The port on which to serve HTTPS with authentication and authorization. 0 disables serving."),
  f("cert-dir", "string", "", "Secure serving", "The directory for the self-signed certificate when --tls-cert-file is not given (in memory when empty)."),
  f("tls-cert-file", "string", "", "Secure serving", "File containing the default x509 certificate for HTTPS."),
  f("tls-private-key-file", "string", "", "Secure serving", "File containing the default x509 private key matching --tls-cert-file."),
  f("tls-min-version", "enum", "", "Secure serving", "Minimum TLS version supported.", { options: ["", "VersionTLS12", "VersionTLS13"] }),
  f("tls-cipher-suites", "list", "", "Secure serving", "Accepted for compatibility: the runtime's default cipher suites are used.", compat),
  f("tls-curve-preferences", "list", "", "Secure serving", "Accepted for compatibility: the runtime's default curves are used.", compat),
  f("tls-sni-cert-key", "list", "", "Secure serving", "Accepted for compatibility: SNI certificates are not supported.", compat),
  f("http2-max-streams-per-connection", "int", "0", "Secure serving", "Accepted for compatibility.", compat),
  f("disable-http2-serving", "bool", "false", "Secure serving", "Accepted for compatibility: the endpoints are served over HTTP/1.1.", compat),
  f("permit-port-sharing", "bool", "false", "Secure serving", "If true, SO_REUSEPORT is used when binding the port."),
  f("permit-address-sharing", "bool", "false", "Secure serving", "Accepted for compatibility.", compat),
];

const authnFlags: FlagSpec[] = [
  f("authentication-kubeconfig", "string", "", "Authentication", "Kubeconfig pointing at the API server that answers TokenReviews (default: the manager's own connection)."),
  f("authentication-token-webhook-cache-ttl", "duration", "10s", "Authentication", "The duration to cache responses from the token authenticator."),
  f("authentication-skip-lookup", "bool", "false", "Authentication", "Accepted for compatibility: the client CA is taken from --client-ca-file only.", compat),
  f("authentication-tolerate-lookup-failure", "bool", "false", "Authentication", "Accepted for compatibility.", compat),
  f("client-ca-file", "string", "", "Authentication", "If set, client certificates signed by this CA are accepted, identified by their CommonName."),
  f("requestheader-client-ca-file", "string", "", "Authentication", "Accepted for compatibility: front-proxy authentication is not supported.", compat),
  f("requestheader-username-headers", "list", "x-remote-user", "Authentication", "Accepted for compatibility.", compat),
  f("requestheader-uid-headers", "list", "", "Authentication", "Accepted for compatibility.", compat),
  f("requestheader-group-headers", "list", "x-remote-group", "Authentication", "Accepted for compatibility.", compat),
  f("requestheader-extra-headers-prefix", "list", "x-remote-extra-", "Authentication", "Accepted for compatibility.", compat),
  f("requestheader-allowed-names", "list", "", "Authentication", "Accepted for compatibility.", compat),
];

const authzFlags: FlagSpec[] = [
  f("authorization-kubeconfig", "string", "", "Authorization", "Kubeconfig pointing at the API server that answers SubjectAccessReviews (default: the manager's own connection)."),
  f("authorization-always-allow-paths", "list", "/healthz,/readyz,/livez", "Authorization", "HTTP paths that are served without authorization."),
  f("authorization-webhook-cache-authorized-ttl", "duration", "10s", "Authorization", "The duration to cache 'authorized' responses from the authorizer."),
  f("authorization-webhook-cache-unauthorized-ttl", "duration", "10s", "Authorization", "The duration to cache 'unauthorized' responses from the authorizer."),
];

const webhookFlags: FlagSpec[] = [
  f("webhooks", "list", "", "Webhook serving", "Accepted for compatibility: no cloud provider webhooks exist.", compat),
  f("webhook-bind-address", "string", "0.0.0.0", "Webhook serving", "Accepted for compatibility.", compat),
  f("webhook-secure-port", "int", "10260", "Webhook serving", "Accepted for compatibility.", compat),
  f("webhook-cert-dir", "string", "", "Webhook serving", "Accepted for compatibility.", compat),
  f("webhook-tls-cert-file", "string", "", "Webhook serving", "Accepted for compatibility.", compat),
  f("webhook-tls-private-key-file", "string", "", "Webhook serving", "Accepted for compatibility.", compat),
];

const loggingFlags: FlagSpec[] = [
  f("v", "int", "0", "Logging", "Number for the log level verbosity (4 and up: debug, 6 and up: trace).", { short: "v" }),
  f("logging-format", "enum", "text", "Logging", "Sets the log format.", { options: ["text", "json"] }),
  f("vmodule", "string", "", "Logging", "Accepted for compatibility: per-file verbosity is not supported.", compat),
  f("log-flush-frequency", "duration", "5s", "Logging", "Accepted for compatibility: logs are written unbuffered.", compat),
];

const beyondFlags: FlagSpec[] = [
  f("load-balancer-class", "string", "", "Beyond upstream", "Also serve LoadBalancer Services whose spec.loadBalancerClass equals this name (unset: classed Services are ignored, as upstream)."),
  f("load-balancer-resync-period", "duration", "0s", "Beyond upstream", "Re-ensure every load balancer this often to correct drift in the cloud (0: off, as upstream)."),
  f("node-deletion-confirmation", "bool", "true", "Beyond upstream", "Delete a NotReady node only when two 'instance does not exist' answers at least one --node-monitor-period apart agree."),
  f("cloud-batch-window", "duration", "5ms", "Beyond upstream", "How long node controllers collect keys before one batched cloud lookup (providers that offer batching)."),
  f("cloud-batch-size", "int", "100", "Beyond upstream", "The most nodes asked about in one batched cloud lookup."),
  f("leader-elect-release-on-shutdown", "bool", "true", "Beyond upstream", "On SIGTERM/SIGINT let in-flight syncs finish and release the Lease so a standby takes over at once."),
  f("shutdown-grace-period", "duration", "20s", "Beyond upstream", "How long in-flight syncs may run after SIGTERM/SIGINT before the manager exits."),
  f("controller-threads", "int", "0", "Beyond upstream", "Run controllers in this many worker threads (0: all in the main thread)."),
];

export const FLAGS: readonly FlagSpec[] = [
  ...cloudFlags,
  ...genericFlags,
  ...controllerFlags,
  ...leaderFlags,
  ...servingFlags,
  ...authnFlags,
  ...authzFlags,
  ...webhookFlags,
  ...loggingFlags,
  ...beyondFlags,
];

const byName = new Map(FLAGS.map((spec) => [spec.name, spec]));

export function flagSpec(name: string): FlagSpec | undefined {
  return byName.get(name);
}
