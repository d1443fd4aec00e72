/**
 * The manager's configuration: every flag converted, validated and deep-frozen once by `loadConfig`, then
 * passed down (to worker threads too, by structured clone: plain objects, arrays, strings, numbers and
 * bigints only, no Sets, Maps, class instances or functions).
 */
import type { ControllerName } from "../names/controllers.ts";
import type { CIDR } from "../net/ip.ts";

/**
 * The most `--controller-threads`: each thread is a JavaScript VM with its own heap, code and mirror of
 * the caches (25–30 MiB each in a burst of 5,000 Nodes), and nothing beyond 8 was measured to pay (16
 * cores). A typo of a thousand would otherwise start a thousand VMs.
 */
export const MAX_CONTROLLER_THREADS = 64;

export interface LogOutputConfig {
  readonly splitStream: boolean;
  /** Bytes of info lines held back (split stream only); 0 writes each line at once. */
  readonly infoBufferBytes: number;
  readonly flushFrequencyMs: number;
}

export interface LeaderElectionConfig {
  readonly enabled: boolean;
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
  readonly resourceName: string;
  readonly resourceNamespace: string;
  readonly releaseOnShutdown: boolean;
}

export interface ServingConfig {
  readonly bindAddress: string;
  readonly securePort: number;
  readonly certDir: string;
  readonly tlsCertFile: string;
  readonly tlsPrivateKeyFile: string;
  readonly tlsMinVersion: string;
  readonly tlsCipherSuites: readonly string[];
  readonly tlsCurvePreferences: readonly string[];
  readonly sniCertKeys: readonly SniCertKey[];
  readonly permitPortSharing: boolean;
  readonly clientAuth: ClientAuthFlags;
  readonly authenticationKubeconfig: string;
  readonly authenticationCacheTtlMs: number;
  readonly authorizationKubeconfig: string;
  readonly alwaysAllowPaths: readonly string[];
  readonly authorizedTtlMs: number;
  readonly unauthorizedTtlMs: number;
}

/** One `--tls-sni-cert-key` value: `cert,key` or `cert,key:name1,name2` (names may be `*.` wildcards). */
export interface SniCertKey {
  readonly certFile: string;
  readonly keyFile: string;
  /** Empty: the certificate's own DNS names and common name. */
  readonly names: readonly string[];
}

/**
 * Where the secure port's client CA and request-header settings come from (`--client-ca-file`, `--requestheader-*`).
 */
export interface ClientAuthFlags {
  readonly clientCAFile: string;
  readonly requestHeaderClientCAFile: string;
  readonly requestHeaderAllowedNames: readonly string[];
  readonly requestHeaderUsernameHeaders: readonly string[];
  readonly requestHeaderUIDHeaders: readonly string[];
  readonly requestHeaderGroupHeaders: readonly string[];
  readonly requestHeaderExtraHeadersPrefix: readonly string[];
  readonly skipLookup: boolean;
  readonly tolerateLookupFailure: boolean;
}

export interface Config {
  readonly cloudProvider: string;
  readonly cloudConfig: string;
  readonly kubeconfig: string;
  readonly master: string;
  /** Enabled controllers, in `CONTROLLER_NAMES` order. */
  readonly controllers: readonly ControllerName[];
  readonly kubeApiQps: number;
  readonly kubeApiBurst: number;
  readonly controllerStartIntervalMs: number;
  readonly leaderElection: LeaderElectionConfig;
  readonly clusterName: string;
  readonly clusterCidrs: readonly CIDR[];
  readonly configureCloudRoutes: boolean;
  readonly useServiceAccountCredentials: boolean;
  readonly routeReconciliationPeriodMs: number;
  readonly nodeMonitorPeriodMs: number;
  readonly nodeStatusUpdateFrequencyMs: number;
  readonly concurrentNodeSyncs: number;
  readonly concurrentNodeStatusUpdates: number;
  readonly concurrentServiceSyncs: number;
  readonly serving: ServingConfig;
  readonly verbosity: number;
  readonly loggingFormat: "text" | "json";
  /** Where log lines go: one stream, or split by severity with info lines optionally buffered. */
  readonly logOutput: LogOutputConfig;
  readonly loadBalancerClass: string;
  readonly loadBalancerResyncPeriodMs: number;
  readonly nodeDeletionConfirmation: boolean;
  readonly cloudBatchWindowMs: number;
  readonly cloudBatchSize: number;
  readonly shutdownGracePeriodMs: number;
  /** 0 to `MAX_CONTROLLER_THREADS`. */
  readonly controllerThreads: number;
  /** Every known feature gate's value (defaults, `AllAlpha`/`AllBeta`, then `--feature-gates`). */
  readonly featureGates: Readonly<Record<string, boolean>>;
  /** Compatibility-only flags the user set; the manager warns about each once at start. */
  readonly compatFlagsSet: readonly string[];
}
