/** Flags of the manager itself: cloud provider, generic controller-manager options, controllers, leader election. */
import { FEATURE_GATES } from "./feature-gates.ts";
import { compat, group } from "./flag-spec.ts";

export const cloudFlags = group("Cloud provider", [
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

export const genericFlags = group("Generic", [
  [
    "controllers",
    "list",
    "*",
    "Controllers to enable. '*' enables all on-by-default controllers, 'foo' enables 'foo', '-foo' disables 'foo'. All: cloud-node-controller, cloud-node-lifecycle-controller, node-route-controller, service-lb-controller (aliases cloud-node, cloud-node-lifecycle, route, service). Other managers' tagging and nodeipam may be turned off ('-tagging'), not on.",
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
    `A set of key=value pairs for alpha/experimental features; upstream's gates are accepted (none changes this manager's behaviour) and reported by kubernetes_feature_enabled; an unknown gate is an error. Options are: ${FEATURE_GATES.map((g) => g.name).join(", ")}.`,
  ],
]);

export const controllerFlags = group("Controllers", [
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
    "How often the node controller refreshes node addresses from the cloud and retries Nodes not yet initialised.",
  ],
  ["concurrent-service-syncs", "int", "1", "Number of services that are allowed to sync concurrently."],
]);

export const leaderFlags = group("Leader election", [
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
