/**
 * Flag text → one frozen, typed `Config`, or the full list of problems (one line each, naming the flag and
 * the value) so an operator fixes everything in one go. Nothing here touches the process.
 */
import { resolveFeatureGates } from "./feature-gates.ts";
import { FLAGS, type FlagSpec } from "./flags.ts";
import { parseArgv } from "./argv.ts";
import { parseBool, parseByteQuantity, parseDuration, parseInteger, parseNumber, splitList } from "./values.ts";
import { readLogOutput, type LogOutputConfig } from "./config-logging.ts";
import { readServing } from "./config-serving.ts";
import { parseCIDR, type CIDR } from "../net/ip.ts";
import { normalizeMaster } from "../kube/connection.ts";
import type { ClientAuthFlags } from "../serving/authn-sources.ts";
import type { SniCertKey } from "../serving/tls-options.ts";
import { selectControllers, type ControllerName } from "../controllers/names.ts";

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

export interface Config {
  readonly cloudProvider: string;
  readonly cloudConfig: string;
  readonly kubeconfig: string;
  readonly master: string;
  readonly controllers: ReadonlySet<ControllerName>;
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
  readonly controllerThreads: number;
  /** Every known feature gate's value (defaults, `AllAlpha`/`AllBeta`, then `--feature-gates`). */
  readonly featureGates: ReadonlyMap<string, boolean>;
  /** Compatibility-only flags the user set; the manager warns about each once at start. */
  readonly compatFlagsSet: readonly string[];
}

export type ConfigResult = { ok: true; config: Config } | { ok: false; errors: string[] };

/** Typed view over the parsed text; every failed conversion appends one error line. */
export class FlagReader {
  readonly errors: string[] = [];
  readonly #values: ReadonlyMap<string, string>;

  constructor(values: ReadonlyMap<string, string>) {
    this.#values = values;
  }

  text(name: string): string {
    return this.#values.get(name) ?? spec(name).default;
  }

  isSet(name: string): boolean {
    return this.#values.has(name);
  }

  fail(name: string, reason: string): void {
    this.errors.push(`invalid value ${JSON.stringify(this.text(name))} for flag --${name}: ${reason}`);
  }

  bool(name: string): boolean {
    const value = parseBool(this.text(name));
    if (value === undefined) this.fail(name, "must be true or false");
    return value ?? false;
  }

  int(name: string, min = Number.MIN_SAFE_INTEGER): number {
    const value = parseInteger(this.text(name));
    if (value === undefined) this.fail(name, "must be an integer");
    else if (value < min) this.fail(name, `must be at least ${min}`);
    return value ?? 0;
  }

  number(name: string, min = 0): number {
    const value = parseNumber(this.text(name));
    if (value === undefined) this.fail(name, "must be a number");
    else if (value < min) this.fail(name, `must be at least ${min}`);
    return value ?? 0;
  }

  duration(name: string, positive = false): number {
    const value = parseDuration(this.text(name));
    if (value === undefined) this.fail(name, "must be a duration such as 300ms, 10s or 5m0s");
    else if (value < 0 || (positive && value === 0)) this.fail(name, positive ? "must be positive" : "must not be negative");
    return value ?? 0;
  }

  list(name: string): string[] {
    return splitList(this.text(name));
  }

  /** Each occurrence of a `repeated` flag. */
  occurrences(name: string): string[] {
    return this.text(name).split("\n").filter((v) => v !== "");
  }

  /** A byte quantity such as 512, 1K, 2Ki or 5Mi. */
  bytes(name: string): number {
    const value = parseByteQuantity(this.text(name));
    if (value === undefined) this.fail(name, "must be a byte quantity such as 512, 1K, 2Ki or 5Mi");
    return value ?? 0;
  }

  choice<T extends string>(name: string): T {
    const value = this.text(name);
    const options = spec(name).options ?? [];
    if (!options.includes(value)) this.fail(name, `must be one of ${options.filter(Boolean).join(", ")}`);
    return value as T;
  }
}

function spec(name: string): FlagSpec {
  const found = FLAGS.find((s) => s.name === name);
  if (!found) throw new Error(`flag --${name} is not defined`);
  return found;
}

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
  const featureGates = readFeatureGates(r);
  const loggingFormat = r.choice<"text" | "json">("logging-format");
  return {
    ...readCloud(r, knownProviders),
    kubeconfig: r.text("kubeconfig"),
    master: readMaster(r),
    controllers: readControllers(r),
    kubeApiQps: r.number("kube-api-qps"),
    kubeApiBurst: r.int("kube-api-burst", 0),
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

/** `--master` as client-go reads it (normalised), so a malformed one is bad input, not a failed first request. */
function readMaster(r: FlagReader): string {
  const master = normalizeMaster(r.text("master"));
  if (master === undefined) r.fail("master", "must be an http(s) URL such as https://10.0.0.1:6443, or host[:port]");
  return master ?? "";
}

function readControllers(r: FlagReader): ReadonlySet<ControllerName> {
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

function readFeatureGates(r: FlagReader): ReadonlyMap<string, boolean> {
  const resolved = resolveFeatureGates(r.list("feature-gates"));
  if (resolved.ok) return resolved.enabled;
  for (const error of resolved.errors) r.fail("feature-gates", error);
  return new Map();
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

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
