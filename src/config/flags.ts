/**
 * The manager's flags, named, defaulted and grouped like upstream `cloud-controller-manager`
 * (k8s.io/cloud-provider options, controller-manager generic options, apiserver serving/authn/authz
 * options, component-base logging). Values stay text here; `config.ts` turns them into typed settings.
 *
 * `status: "compat"` marks flags that parse for drop-in compatibility but change nothing; `--help` says so
 * and the manager warns once at start when one is set.
 */
/** `repeated`: each occurrence is one value (upstream's `namedCertKey`, whose values contain commas). */
export type FlagType = "string" | "bool" | "int" | "float" | "duration" | "list" | "enum" | "repeated";

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

type Row = readonly [name: string, type: FlagType, def: string, usage: string, extra?: Partial<FlagSpec>];

/** A group's rows become specs; rows keep the table readable. */
const group = (name: FlagGroup, rows: readonly Row[]): FlagSpec[] =>
  rows.map(([flag, type, def, usage, extra]) => ({ name: flag, type, default: def, group: name, usage, ...extra }));

const compat = { status: "compat" } as const;

const cloudFlags = group("Cloud provider", [
  ["cloud-provider", "string", "", "The provider for cloud services (required): fake, aws, baremetal, vsphere."],
  [
    "cloud-config",
    "string",
    "",
    "The path to the cloud provider configuration file. Empty string for no configuration file.",
  ],
  ["cluster-name", "string", "kubernetes", "The instance prefix for the cluster."],
  [
    "cluster-cidr",
    "string",
    "",
    "CIDR range(s) for Pods in the cluster (one, or one IPv4 and one IPv6, comma-separated). Routes inside it are managed by the route controller.",
  ],
  [
    "configure-cloud-routes",
    "bool",
    "true",
    "Should CIDRs allocated by allocate-node-cidrs be configured on the cloud provider.",
  ],
  [
    "allocate-node-cidrs",
    "bool",
    "false",
    "Accepted for compatibility: pod CIDRs are allocated by kube-controller-manager.",
    compat,
  ],
  [
    "cidr-allocator-type",
    "string",
    "RangeAllocator",
    "Accepted for compatibility: pod CIDRs are allocated by kube-controller-manager.",
    compat,
  ],
  [
    "use-service-account-credentials",
    "bool",
    "false",
    "If true, use individual service account credentials for each controller.",
  ],
  ["allow-untagged-cloud", "bool", "false", "Accepted for compatibility (deprecated upstream).", compat],
  [
    "external-cloud-volume-plugin",
    "string",
    "",
    "Accepted for compatibility: not used by the cloud-controller-manager.",
    compat,
  ],
  ["node-sync-period", "duration", "0s", "Accepted for compatibility (deprecated no-op upstream).", compat],
  [
    "route-reconciliation-period",
    "duration",
    "10s",
    "The period for reconciling routes created for Nodes by the cloud provider.",
  ],
  [
    "node-monitor-period",
    "duration",
    "5s",
    "The period for syncing NodeStatus in the cloud node lifecycle controller.",
  ],
]);

const genericFlags = group("Generic", [
  [
    "controllers",
    "list",
    "*",
    "Controllers to enable. '*' enables all on-by-default controllers, 'foo' enables 'foo', '-foo' disables 'foo'. All: cloud-node-controller, cloud-node-lifecycle-controller, node-route-controller, service-lb-controller.",
  ],
  [
    "kubeconfig",
    "string",
    "",
    "Path to kubeconfig file with authorization and master location information (in-cluster config when neither this nor --master is set).",
  ],
  ["master", "string", "", "The address of the Kubernetes API server (overrides any value in kubeconfig)."],
  ["kube-api-qps", "float", "20", "QPS to use while talking with kubernetes apiserver."],
  ["kube-api-burst", "int", "30", "Burst to use while talking with kubernetes apiserver."],
  [
    "kube-api-content-type",
    "string",
    "application/vnd.kubernetes.protobuf",
    "Accepted for compatibility: requests are always JSON.",
    compat,
  ],
  [
    "min-resync-period",
    "duration",
    "12h0m0s",
    "Accepted for compatibility: informers rely on watches, not periodic resyncs.",
    compat,
  ],
  ["controller-start-interval", "duration", "0s", "Interval between starting controller managers."],
  [
    "enable-leader-migration",
    "bool",
    "false",
    "Accepted for compatibility: leader migration is not supported.",
    compat,
  ],
  ["leader-migration-config", "string", "", "Accepted for compatibility: leader migration is not supported.", compat],
  ["profiling", "bool", "true", "Accepted for compatibility: no profiling endpoints are served.", compat],
  ["contention-profiling", "bool", "false", "Accepted for compatibility: no profiling endpoints are served.", compat],
  [
    "feature-gates",
    "list",
    "",
    "A set of key=value pairs for alpha/experimental features; upstream's gates are accepted (none changes this manager's behaviour) and reported by kubernetes_feature_enabled; an unknown gate is an error.",
  ],
]);

const controllerFlags = group("Controllers", [
  ["concurrent-node-syncs", "int", "1", "Number of workers concurrently synchronizing nodes."],
  [
    "concurrent-node-status-updates",
    "int",
    "0",
    "Number of workers concurrently updating node addresses; 0 uses --concurrent-node-syncs.",
  ],
  [
    "node-status-update-frequency",
    "duration",
    "5m0s",
    "How often the node controller refreshes node addresses from the cloud.",
  ],
  ["concurrent-service-syncs", "int", "1", "Number of services that are allowed to sync concurrently."],
]);

const leaderFlags = group("Leader election", [
  [
    "leader-elect",
    "bool",
    "true",
    "Start a leader election client and gain leadership before executing the main loop.",
  ],
  [
    "leader-elect-lease-duration",
    "duration",
    "15s",
    "How long non-leaders wait after the last observed renewal before trying to take the lease.",
  ],
  [
    "leader-elect-renew-deadline",
    "duration",
    "10s",
    "How long the leader keeps trying to renew before it stops leading.",
  ],
  [
    "leader-elect-retry-period",
    "duration",
    "2s",
    "How long clients wait between attempts to acquire and renew leadership.",
  ],
  [
    "leader-elect-resource-lock",
    "enum",
    "leases",
    "The type of resource object used for locking (only 'leases').",
    { options: ["leases"] },
  ],
  ["leader-elect-resource-name", "string", "cloud-controller-manager", "The name of the Lease used for locking."],
  ["leader-elect-resource-namespace", "string", "kube-system", "The namespace of the Lease used for locking."],
]);

const servingFlags = group("Secure serving", [
  ["bind-address", "string", "0.0.0.0", "The IP address on which to listen for the --secure-port port."],
  [
    "secure-port",
    "int",
    "10258",
    "The port on which to serve HTTPS with authentication and authorization. 0 disables serving.",
  ],
  [
    "cert-dir",
    "string",
    "",
    "The directory for the self-signed certificate when --tls-cert-file is not given (in memory when empty).",
  ],
  ["tls-cert-file", "string", "", "File containing the default x509 certificate for HTTPS."],
  ["tls-private-key-file", "string", "", "File containing the default x509 private key matching --tls-cert-file."],
  [
    "tls-min-version",
    "string",
    "",
    "Minimum TLS version supported: VersionTLS10, VersionTLS11, VersionTLS12 (default), VersionTLS13.",
  ],
  [
    "tls-cipher-suites",
    "list",
    "",
    "Comma-separated cipher suites for TLS 1.2 and below (Go names); TLS 1.3 suites are always on. Default: the runtime's. A suite the runtime cannot offer is an error.",
  ],
  [
    "tls-curve-preferences",
    "list",
    "",
    "Comma-separated key-exchange curves in preference order (CurveP256, CurveP384, CurveP521, X25519, X25519MLKEM768 or their IDs). Default: the runtime's.",
  ],
  [
    "tls-sni-cert-key",
    "repeated",
    "",
    "A certificate/key pair served to clients asking for one of its names: certfile,keyfile or certfile,keyfile:name,*.wildcard. Repeatable.",
  ],
  ["http2-max-streams-per-connection", "int", "0", "Accepted for compatibility.", compat],
  [
    "disable-http2-serving",
    "bool",
    "false",
    "Accepted for compatibility: the endpoints are served over HTTP/1.1.",
    compat,
  ],
  ["permit-port-sharing", "bool", "false", "If true, SO_REUSEPORT is used when binding the port."],
  ["permit-address-sharing", "bool", "false", "Accepted for compatibility.", compat],
]);

const authnFlags = group("Authentication", [
  [
    "authentication-kubeconfig",
    "string",
    "",
    "Kubeconfig pointing at the API server that answers TokenReviews (default: the manager's own connection).",
  ],
  [
    "authentication-token-webhook-cache-ttl",
    "duration",
    "10s",
    "The duration to cache responses from the token authenticator.",
  ],
  [
    "authentication-skip-lookup",
    "bool",
    "false",
    "If false, the client and request-header CAs missing from the flags are read from the kube-system/extension-apiserver-authentication ConfigMap.",
  ],
  [
    "authentication-tolerate-lookup-failure",
    "bool",
    "false",
    "If true, a failed lookup of the extension-apiserver-authentication ConfigMap is not fatal (only bearer tokens are then authenticated).",
  ],
  [
    "client-ca-file",
    "string",
    "",
    "Client certificates signed by one of these CAs are authenticated as their common name (user) and organizations (groups).",
  ],
  [
    "requestheader-client-ca-file",
    "string",
    "",
    "Root certificates for the front proxy's client certificate; requests it signs may name the user in --requestheader-username-headers.",
  ],
  [
    "requestheader-username-headers",
    "list",
    "x-remote-user",
    "Request headers to inspect for the username; the first one set wins.",
  ],
  ["requestheader-uid-headers", "list", "", "Request headers to inspect for the user's UID."],
  ["requestheader-group-headers", "list", "x-remote-group", "Request headers to inspect for groups."],
  [
    "requestheader-extra-headers-prefix",
    "list",
    "x-remote-extra-",
    "Request header prefixes to inspect for extra user information.",
  ],
  [
    "requestheader-allowed-names",
    "list",
    "",
    "Client certificate common names allowed to pass a user in the request headers; empty allows any the request-header CA signed.",
  ],
]);

const authzFlags = group("Authorization", [
  [
    "authorization-kubeconfig",
    "string",
    "",
    "Kubeconfig pointing at the API server that answers SubjectAccessReviews (default: the manager's own connection).",
  ],
  [
    "authorization-always-allow-paths",
    "list",
    "/healthz,/readyz,/livez",
    "HTTP paths that are served without authorization.",
  ],
  [
    "authorization-webhook-cache-authorized-ttl",
    "duration",
    "10s",
    "The duration to cache 'authorized' responses from the authorizer.",
  ],
  [
    "authorization-webhook-cache-unauthorized-ttl",
    "duration",
    "10s",
    "The duration to cache 'unauthorized' responses from the authorizer.",
  ],
]);

const webhookFlags = group("Webhook serving", [
  ["webhooks", "list", "", "Accepted for compatibility: no cloud provider webhooks exist.", compat],
  ["webhook-bind-address", "string", "0.0.0.0", "Accepted for compatibility.", compat],
  ["webhook-secure-port", "int", "10260", "Accepted for compatibility.", compat],
  ["webhook-cert-dir", "string", "", "Accepted for compatibility.", compat],
  ["webhook-tls-cert-file", "string", "", "Accepted for compatibility.", compat],
  ["webhook-tls-private-key-file", "string", "", "Accepted for compatibility.", compat],
  ["webhook-tls-min-version", "string", "", "Accepted for compatibility (checked like --tls-min-version).", compat],
  ["webhook-tls-cipher-suites", "list", "", "Accepted for compatibility (checked like --tls-cipher-suites).", compat],
  [
    "webhook-tls-curve-preferences",
    "list",
    "",
    "Accepted for compatibility (checked like --tls-curve-preferences).",
    compat,
  ],
  [
    "webhook-tls-sni-cert-key",
    "repeated",
    "",
    "Accepted for compatibility (checked like --tls-sni-cert-key). Repeatable.",
    compat,
  ],
  ["webhook-disable-http2-serving", "bool", "false", "Accepted for compatibility.", compat],
]);

const loggingFlags = group("Logging", [
  ["v", "int", "0", "Number for the log level verbosity (4 and up: debug, 6 and up: trace).", { short: "v" }],
  ["logging-format", "enum", "text", "Sets the log format.", { options: ["text", "json"] }],
  ["vmodule", "string", "", "Accepted for compatibility: per-file verbosity is not supported.", compat],
  [
    "log-flush-frequency",
    "duration",
    "5s",
    "Maximum number of seconds between log flushes (buffered info lines, see --log-*-info-buffer-size).",
  ],
  [
    "log-text-split-stream",
    "bool",
    "false",
    "[Alpha] In text format, write error messages to stderr and info messages to stdout. Needs the LoggingAlphaOptions feature gate.",
  ],
  [
    "log-text-info-buffer-size",
    "string",
    "0",
    "[Alpha] In text format with split output streams, buffer up to this many bytes of info messages (512, 1K, 2Ki, 3M, 5Mi…; 0: none). Needs the LoggingAlphaOptions feature gate.",
  ],
  [
    "log-json-split-stream",
    "bool",
    "false",
    "[Alpha] In JSON format, write error messages to stderr and info messages to stdout. Needs the LoggingAlphaOptions feature gate.",
  ],
  [
    "log-json-info-buffer-size",
    "string",
    "0",
    "[Alpha] In JSON format with split output streams, buffer up to this many bytes of info messages (512, 1K, 2Ki, 3M, 5Mi…; 0: none). Needs the LoggingAlphaOptions feature gate.",
  ],
]);

const beyondFlags = group("Beyond upstream", [
  [
    "load-balancer-class",
    "string",
    "",
    "Also serve LoadBalancer Services whose spec.loadBalancerClass equals this name (unset: classed Services are ignored, as upstream).",
  ],
  [
    "load-balancer-resync-period",
    "duration",
    "0s",
    "Re-ensure every load balancer this often to correct drift in the cloud (0: off, as upstream).",
  ],
  [
    "node-deletion-confirmation",
    "bool",
    "true",
    "Delete a NotReady node only when two 'instance does not exist' answers at least one --node-monitor-period apart agree.",
  ],
  [
    "cloud-batch-window",
    "duration",
    "5ms",
    "How long node controllers collect keys before one batched cloud lookup (providers that offer batching).",
  ],
  ["cloud-batch-size", "int", "100", "The most nodes asked about in one batched cloud lookup."],
  [
    "leader-elect-release-on-shutdown",
    "bool",
    "true",
    "On SIGTERM/SIGINT let in-flight syncs finish and release the Lease so a standby takes over at once.",
  ],
  [
    "shutdown-grace-period",
    "duration",
    "20s",
    "How long in-flight syncs may run after SIGTERM/SIGINT before the manager exits.",
  ],
  ["controller-threads", "int", "0", "Run controllers in this many worker threads (0: all in the main thread)."],
]);

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
