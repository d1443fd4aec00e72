/**
 * Flag text → one frozen, typed `Config`, or the full list of problems (one line each, naming the flag and
 * the value) so an operator fixes everything in one go. Nothing here touches the process.
 */
import { selectControllers, type ControllerName } from "../names/controllers.ts";
import { isDnsSubdomain } from "../names/dns.ts";
import { normalizeMaster } from "../kube/connection.ts";
import { parseCIDR, type CIDR } from "../net/ip.ts";
import { deepFreeze } from "../util/freeze.ts";
import { parseArgv, type ParsedArgv } from "./argv.ts";
import { MAX_CONTROLLER_THREADS, type Config, type LeaderElectionConfig } from "./config.ts";
import { resolveFeatureGates } from "./feature-gates.ts";
import { FlagReader } from "./flag-reader.ts";
import { FLAGS } from "./flags.ts";
import { readLogOutput } from "./logging.ts";
import { readServing } from "./serving.ts";

export type ConfigResult = { ok: true; config: Config } | { ok: false; errors: string[] };

export function loadConfig(argv: readonly string[], knownProviders: readonly string[]): ConfigResult {
  const parsed = parseArgv(argv, FLAGS);
  const r = new FlagReader(parsed.values);
  r.errors.push(...commandLineErrors(parsed));
  const config = readConfig(r, knownProviders);
  return r.errors.length > 0 ? { ok: false, errors: r.errors } : { ok: true, config: deepFreeze(config) };
}

/**
 * What upstream's command refuses before looking at any flag's value: an unknown flag, a flag without its
 * value, an argument. An empty argument (a template's `""`, an unset
 * "$EXTRA_ARGS") is no argument, as upstream's command has it.
 */
export function commandLineErrors(parsed: ParsedArgv): string[] {
  const positionals = parsed.positionals.filter((arg) => arg !== "");
  const extra = `"cloud-controller-manager" does not take any arguments, got ${JSON.stringify(positionals)}`;
  return positionals.length > 0 ? [...parsed.errors, extra] : [...parsed.errors];
}

/**
 * `commandLineErrors`, and what the flags refuse as they read their values: one that does not read as its
 * type (`FlagReader.syntax`), an unknown feature gate.
 */
export function parseErrors(parsed: ParsedArgv): string[] {
  const r = new FlagReader(parsed.values);
  for (const name of parsed.values.keys()) r.syntax(name);
  // The feature gates' own flag refuses an unknown gate as it reads it.
  if (r.isSet("feature-gates")) readFeatureGates(r);
  return [...commandLineErrors(parsed), ...r.errors];
}

/**
 * As client-go's rest.Config takes them: QPS 0 means its default of 5 and burst 0 its default of 10; only
 * a negative QPS turns the limit off.
 */
function readClientLimits(r: FlagReader): { kubeApiQps: number; kubeApiBurst: number } {
  const qps = r.number("kube-api-qps", Number.NEGATIVE_INFINITY);
  const burst = r.int("kube-api-burst", 0);
  return { kubeApiQps: qps === 0 ? 5 : qps, kubeApiBurst: burst === 0 ? 10 : burst };
}

function readConfig(r: FlagReader, knownProviders: readonly string[]): Config {
  const featureGates = readFeatureGates(r);
  const loggingFormat = r.choice<"text" | "json">("logging-format");
  return {
    ...readCloud(r, knownProviders),
    kubeconfig: r.text("kubeconfig"),
    master: readMaster(r),
    controllers: readControllers(r),
    ...readClientLimits(r),
    controllerStartIntervalMs: r.duration("controller-start-interval"),
    leaderElection: readLeaderElection(r),
    ...readControllerTuning(r),
    serving: readServing(r),
    verbosity: r.int("v", 0),
    loggingFormat,
    logOutput: readLogOutput(r, loggingFormat, featureGates),
    ...readBeyondUpstream(r),
    featureGates,
    compatFlagsSet: FLAGS.filter((s) => s.status === "compat" && r.isSet(s.name)).map((s) => s.name),
  };
}

type CloudSettings = Pick<
  Config,
  | "cloudProvider"
  | "cloudConfig"
  | "clusterName"
  | "clusterCidrs"
  | "configureCloudRoutes"
  | "useServiceAccountCredentials"
  | "routeReconciliationPeriodMs"
  | "nodeMonitorPeriodMs"
>;

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
    routeReconciliationPeriodMs: r.duration("route-reconciliation-period", "positive"),
    nodeMonitorPeriodMs: r.duration("node-monitor-period", "positive"),
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

/** `--master` as client-go reads it (normalised), so a malformed one is bad input, not a failed first request. */
function readMaster(r: FlagReader): string {
  const master = normalizeMaster(r.text("master"));
  if (master === undefined) r.fail("master", "must be an http(s) URL such as https://10.0.0.1:6443, or host[:port]");
  return master ?? "";
}

function readControllers(r: FlagReader): readonly ControllerName[] {
  const { enabled, unknown, elsewhere } = selectControllers(r.list("controllers"));
  for (const name of unknown) r.fail("controllers", `${JSON.stringify(name)} is not in the list of known controllers`);
  for (const why of elsewhere) r.fail("controllers", why);
  return enabled;
}

/**
 * As upstream validates them: the lock, the names and the three durations (positive, in order) only with
 * leader election on, and the ordering only once each duration parsed. Off, a duration only has to read
 * as one (pflag's check), a negative one too.
 */
function readLeaderElection(r: FlagReader): LeaderElectionConfig {
  const before = r.errors.length;
  const enabled = r.bool("leader-elect");
  const rule = enabled ? "positive" : "any";
  const le: LeaderElectionConfig = {
    enabled,
    leaseDurationMs: r.duration("leader-elect-lease-duration", rule),
    renewDeadlineMs: r.duration("leader-elect-renew-deadline", rule),
    retryPeriodMs: r.duration("leader-elect-retry-period", rule),
    resourceName: r.text("leader-elect-resource-name"),
    resourceNamespace: r.text("leader-elect-resource-namespace"),
    releaseOnShutdown: r.bool("leader-elect-release-on-shutdown"),
  };
  if (!le.enabled) return le;
  r.choice("leader-elect-resource-lock");
  for (const name of ["leader-elect-resource-name", "leader-elect-resource-namespace"])
    if (!isDnsSubdomain(r.text(name))) r.fail(name, "must be a lowercase RFC 1123 subdomain (a Lease's name)");
  if (r.errors.length > before) return le;
  if (le.leaseDurationMs <= le.renewDeadlineMs) {
    r.fail("leader-elect-lease-duration", "must be greater than --leader-elect-renew-deadline");
  }
  if (le.renewDeadlineMs <= le.retryPeriodMs * 1.2) {
    r.fail("leader-elect-renew-deadline", "must be greater than 1.2 × --leader-elect-retry-period");
  }
  return le;
}

type TuningSettings = Pick<
  Config,
  "nodeStatusUpdateFrequencyMs" | "concurrentNodeSyncs" | "concurrentNodeStatusUpdates" | "concurrentServiceSyncs"
>;

/**
 * Workers per controller: upstream takes any int32 and starts that many goroutines; here each is a
 * loop with state of its own, so a typo's billion would take the host's memory. Ten thousand is far
 * beyond what any API server's rate limit lets pay.
 */
const MAX_WORKERS = 10_000;

function readControllerTuning(r: FlagReader): TuningSettings {
  const concurrentNodeSyncs = r.int("concurrent-node-syncs", 1, MAX_WORKERS);
  const statusUpdates = r.int("concurrent-node-status-updates", 0, MAX_WORKERS);
  return {
    nodeStatusUpdateFrequencyMs: r.duration("node-status-update-frequency", "positive"),
    concurrentNodeSyncs,
    concurrentNodeStatusUpdates: statusUpdates === 0 ? concurrentNodeSyncs : statusUpdates,
    concurrentServiceSyncs: r.int("concurrent-service-syncs", 1, MAX_WORKERS),
  };
}

function readFeatureGates(r: FlagReader): Readonly<Record<string, boolean>> {
  const resolved = resolveFeatureGates(r.list("feature-gates"));
  if (resolved.ok) return Object.fromEntries(resolved.enabled);
  for (const error of resolved.errors) r.fail("feature-gates", error);
  return {};
}

type BeyondSettings = Pick<
  Config,
  | "loadBalancerClass"
  | "loadBalancerResyncPeriodMs"
  | "nodeDeletionConfirmation"
  | "cloudBatchWindowMs"
  | "cloudBatchSize"
  | "shutdownGracePeriodMs"
  | "controllerThreads"
>;

function readBeyondUpstream(r: FlagReader): BeyondSettings {
  return {
    loadBalancerClass: r.text("load-balancer-class"),
    loadBalancerResyncPeriodMs: r.duration("load-balancer-resync-period"),
    nodeDeletionConfirmation: r.bool("node-deletion-confirmation"),
    cloudBatchWindowMs: r.duration("cloud-batch-window"),
    cloudBatchSize: r.int("cloud-batch-size", 1),
    shutdownGracePeriodMs: r.duration("shutdown-grace-period"),
    controllerThreads: r.int("controller-threads", 0, MAX_CONTROLLER_THREADS),
  };
}
