/**
 * Flag text → one frozen, typed `Config`, or the full list of problems (one line each, naming the flag and
 * the value) so an operator fixes everything in one go. Nothing here touches the process.
 */
import { selectControllers, type ControllerName } from "../names/controllers.ts";
import { parseCIDR, parseIP, type CIDR } from "../net/ip.ts";
import { deepFreeze } from "../util/freeze.ts";
import { parseArgv } from "./argv.ts";
import type { ClientAuthFlags, Config, LeaderElectionConfig, ServingConfig } from "./config.ts";
import { resolveFeatureGates } from "./feature-gates.ts";
import { FlagReader } from "./flag-reader.ts";
import { FLAGS } from "./flags.ts";

export type ConfigResult = { ok: true; config: Config } | { ok: false; errors: string[] };

export function loadConfig(argv: readonly string[], knownProviders: readonly string[]): ConfigResult {
  const parsed = parseArgv(argv, FLAGS);
  const r = new FlagReader(parsed.values);
  r.errors.push(...parsed.errors);
  if (parsed.positionals.length > 0) {
    r.errors.push(`"cloud-controller-manager" does not take any arguments, got ${JSON.stringify(parsed.positionals)}`);
  }
  const config = readConfig(r, knownProviders);
  return r.errors.length > 0 ? { ok: false, errors: r.errors } : { ok: true, config: deepFreeze(config) };
}

function readConfig(r: FlagReader, knownProviders: readonly string[]): Config {
  return {
    ...readCloud(r, knownProviders),
    kubeconfig: r.text("kubeconfig"),
    master: r.text("master"),
    controllers: readControllers(r),
    kubeApiQps: r.number("kube-api-qps"),
    kubeApiBurst: r.int("kube-api-burst", 0),
    controllerStartIntervalMs: r.duration("controller-start-interval"),
    leaderElection: readLeaderElection(r),
    ...readControllerTuning(r),
    serving: readServing(r),
    verbosity: r.int("v", 0),
    loggingFormat: r.choice<"text" | "json">("logging-format"),
    ...readBeyondUpstream(r),
    featureGates: readFeatureGates(r),
    compatFlagsSet: FLAGS.filter((s) => s.status === "compat" && r.isSet(s.name)).map((s) => s.name),
  };
}

type CloudSettings = Pick<Config, "cloudProvider" | "cloudConfig" | "clusterName" | "clusterCidrs" | "configureCloudRoutes" | "useServiceAccountCredentials" | "routeReconciliationPeriodMs" | "nodeMonitorPeriodMs">;

function readCloud(r: FlagReader, knownProviders: readonly string[]): CloudSettings {
  const cloudProvider = r.text("cloud-provider");
  if (cloudProvider === "") r.errors.push("--cloud-provider cannot be empty");
  else if (!knownProviders.includes(cloudProvider)) {
    r.fail("cloud-provider", `unknown cloud provider (known: ${knownProviders.join(", ")})`);
  }
  r.bool("allocate-node-cidrs");
  r.bool("allow-untagged-cloud");
  r.duration("node-sync-period");
  return {
    cloudProvider,
    cloudConfig: r.text("cloud-config"),
    clusterName: r.text("cluster-name"),
    clusterCidrs: readClusterCidrs(r),
    configureCloudRoutes: r.bool("configure-cloud-routes"),
    useServiceAccountCredentials: r.bool("use-service-account-credentials"),
    routeReconciliationPeriodMs: r.duration("route-reconciliation-period", true),
    nodeMonitorPeriodMs: r.duration("node-monitor-period", true),
  };
}

/** Syntax only; the count/family rule is the route controller's start condition, as upstream. */
function readClusterCidrs(r: FlagReader): CIDR[] {
  const cidrs: CIDR[] = [];
  for (const text of r.list("cluster-cidr")) {
    const cidr = parseCIDR(text);
    if (cidr) cidrs.push(cidr);
    else r.fail("cluster-cidr", `${JSON.stringify(text)} is not a valid CIDR`);
  }
  return cidrs;
}

function readControllers(r: FlagReader): readonly ControllerName[] {
  const { enabled, unknown } = selectControllers(r.list("controllers"));
  for (const name of unknown) r.fail("controllers", `${JSON.stringify(name)} is not in the list of known controllers`);
  return enabled;
}

function readLeaderElection(r: FlagReader): LeaderElectionConfig {
  const le: LeaderElectionConfig = {
    enabled: r.bool("leader-elect"),
    leaseDurationMs: r.duration("leader-elect-lease-duration", true),
    renewDeadlineMs: r.duration("leader-elect-renew-deadline", true),
    retryPeriodMs: r.duration("leader-elect-retry-period", true),
    resourceName: r.text("leader-elect-resource-name"),
    resourceNamespace: r.text("leader-elect-resource-namespace"),
    releaseOnShutdown: r.bool("leader-elect-release-on-shutdown"),
  };
  r.choice("leader-elect-resource-lock");
  if (le.enabled && le.leaseDurationMs <= le.renewDeadlineMs) {
    r.fail("leader-elect-lease-duration", "must be greater than --leader-elect-renew-deadline");
  }
  if (le.enabled && le.renewDeadlineMs <= le.retryPeriodMs * 1.2) {
    r.fail("leader-elect-renew-deadline", "must be greater than 1.2 × --leader-elect-retry-period");
  }
  return le;
}

type TuningSettings = Pick<Config, "nodeStatusUpdateFrequencyMs" | "concurrentNodeSyncs" | "concurrentNodeStatusUpdates" | "concurrentServiceSyncs">;

function readControllerTuning(r: FlagReader): TuningSettings {
  const concurrentNodeSyncs = r.int("concurrent-node-syncs", 1);
  const statusUpdates = r.int("concurrent-node-status-updates", 0);
  return {
    nodeStatusUpdateFrequencyMs: r.duration("node-status-update-frequency", true),
    concurrentNodeSyncs,
    concurrentNodeStatusUpdates: statusUpdates === 0 ? concurrentNodeSyncs : statusUpdates,
    concurrentServiceSyncs: r.int("concurrent-service-syncs", 1),
  };
}

function readServing(r: FlagReader): ServingConfig {
  const bindAddress = r.text("bind-address");
  if (!parseIP(bindAddress)) r.fail("bind-address", "must be an IP address");
  const securePort = r.int("secure-port", 0);
  if (securePort > 65535) r.fail("secure-port", "must be at most 65535");
  const serving = {
    bindAddress,
    securePort,
    certDir: r.text("cert-dir"),
    tlsCertFile: r.text("tls-cert-file"),
    tlsPrivateKeyFile: r.text("tls-private-key-file"),
    tlsMinVersion: r.choice<string>("tls-min-version"),
    tlsCipherSuites: r.list("tls-cipher-suites"),
    tlsCurvePreferences: r.list("tls-curve-preferences"),
    sniCertKeys: [],
    permitPortSharing: r.bool("permit-port-sharing"),
    clientAuth: readClientAuth(r),
    authenticationKubeconfig: r.text("authentication-kubeconfig"),
    authenticationCacheTtlMs: r.duration("authentication-token-webhook-cache-ttl"),
    authorizationKubeconfig: r.text("authorization-kubeconfig"),
    alwaysAllowPaths: r.list("authorization-always-allow-paths"),
    authorizedTtlMs: r.duration("authorization-webhook-cache-authorized-ttl"),
    unauthorizedTtlMs: r.duration("authorization-webhook-cache-unauthorized-ttl"),
  };
  if ((serving.tlsCertFile === "") !== (serving.tlsPrivateKeyFile === "")) {
    r.fail("tls-cert-file", "--tls-cert-file and --tls-private-key-file must be given together");
  }
  readCompatServing(r);
  return serving;
}

function readClientAuth(r: FlagReader): ClientAuthFlags {
  return {
    clientCAFile: r.text("client-ca-file"),
    requestHeaderClientCAFile: r.text("requestheader-client-ca-file"),
    requestHeaderAllowedNames: r.list("requestheader-allowed-names"),
    requestHeaderUsernameHeaders: r.list("requestheader-username-headers"),
    requestHeaderUIDHeaders: r.list("requestheader-uid-headers"),
    requestHeaderGroupHeaders: r.list("requestheader-group-headers"),
    requestHeaderExtraHeadersPrefix: r.list("requestheader-extra-headers-prefix"),
    skipLookup: r.bool("authentication-skip-lookup"),
    tolerateLookupFailure: r.bool("authentication-tolerate-lookup-failure"),
  };
}

/** Compatibility flags still get their syntax checked, so a typo is not silently accepted. */
function readCompatServing(r: FlagReader): void {
  r.int("http2-max-streams-per-connection", 0);
  r.bool("disable-http2-serving");
  r.bool("permit-address-sharing");
  r.int("webhook-secure-port", 0);
  r.duration("min-resync-period");
  r.duration("log-flush-frequency");
  r.bool("profiling");
  r.bool("contention-profiling");
  r.bool("enable-leader-migration");
}

function readFeatureGates(r: FlagReader): Readonly<Record<string, boolean>> {
  const resolved = resolveFeatureGates(r.list("feature-gates"));
  if (resolved.ok) return Object.fromEntries(resolved.enabled);
  for (const error of resolved.errors) r.fail("feature-gates", error);
  return {};
}

type BeyondSettings = Pick<Config, "loadBalancerClass" | "loadBalancerResyncPeriodMs" | "nodeDeletionConfirmation" | "cloudBatchWindowMs" | "cloudBatchSize" | "shutdownGracePeriodMs" | "controllerThreads">;

function readBeyondUpstream(r: FlagReader): BeyondSettings {
  return {
    loadBalancerClass: r.text("load-balancer-class"),
    loadBalancerResyncPeriodMs: r.duration("load-balancer-resync-period"),
    nodeDeletionConfirmation: r.bool("node-deletion-confirmation"),
    cloudBatchWindowMs: r.duration("cloud-batch-window"),
    cloudBatchSize: r.int("cloud-batch-size", 1),
    shutdownGracePeriodMs: r.duration("shutdown-grace-period"),
    controllerThreads: r.int("controller-threads", 0),
  };
}
