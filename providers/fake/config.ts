/**
 * The fake cloud's cloud-config (YAML or JSON). Every problem is reported, each naming its field.
 *
 * ```yaml
 * endpoint: http://127.0.0.1:7070   # optional: share one cloud served by `cloud-controller-manager fake-cloud`
 * batching: true                    # offer the batched instance lookups (default true)
 * maxBatchSize: 100
 * faults: { latency: 50ms, errorRate: 0, throttle: { qps: 100, burst: 200 }, failAll: error|throttle,
 *           operationLatency: { EnsureLoadBalancerDeleted: 2s },    # extra latency for single operations
 *           crashAfter: 2s }      # throw an uncaught error this long after initialize (tests supervision)
 * defaults: { instanceType: fake.small, zone: zone-a, region: region-1 }
 * autoInstances: true               # any node name not listed is a running instance with the defaults
 * instances:
 *   - name: node-a
 *     providerID: fake://node-a     # default fake://<name>
 *     instanceType: fake.large
 *     zone: zone-b
 *     addresses: [{ type: InternalIP, address: 10.0.0.1 }]
 *     labels: { example.com/rack: r1 }
 *     state: running                # running | stopped | terminated
 * loadBalancers: { ipPool: [203.0.113.0/24, 2001:db8:fa::/112], hostnameSuffix: "" }
 * routes: true                      # offer the Routes capability (default true)
 * ```
 */
import { parseCIDR } from "../../src/net/ip.ts";
import { parseDuration } from "../../src/config/values.ts";
import type { NodeAddress, NodeAddressType } from "../../src/kube/objects.ts";
import { parseConfigText } from "../../src/cloud/config-text.ts";

export type InstanceState = "running" | "stopped" | "terminated";

export interface FakeInstance {
  readonly name: string;
  readonly providerID: string;
  readonly instanceType: string;
  readonly zone: string;
  readonly region: string;
  readonly addresses: readonly NodeAddress[];
  readonly labels: Readonly<Record<string, string>>;
  readonly state: InstanceState;
}

export interface Faults {
  readonly latencyMs: number;
  readonly errorRate: number;
  readonly throttle?: { readonly qps: number; readonly burst: number };
  /** Every call fails this way until cleared. */
  readonly failAll?: "error" | "throttle";
  /** Extra latency for single operations (by operation name), on top of `latencyMs`. */
  readonly operationLatencyMs?: Readonly<Record<string, number>>;
  /** Throw an uncaught error this long after `initialize`: a stand-in for a bug in a provider's background work. */
  readonly crashAfterMs?: number;
}

export interface Defaults {
  readonly instanceType: string;
  readonly zone: string;
  readonly region: string;
}

export interface FakeConfig {
  readonly endpoint: string;
  readonly batching: boolean;
  readonly maxBatchSize: number;
  readonly faults: Faults;
  readonly defaults: Defaults;
  readonly autoInstances: boolean;
  readonly instances: readonly FakeInstance[];
  readonly ipPool: readonly string[];
  readonly hostnameSuffix: string;
  readonly routes: boolean;
}

const ADDRESS_TYPES: readonly NodeAddressType[] = [
  "Hostname",
  "InternalIP",
  "ExternalIP",
  "InternalDNS",
  "ExternalDNS",
];
const STATES: readonly InstanceState[] = ["running", "stopped", "terminated"];
const TOP_KEYS = [
  "endpoint",
  "batching",
  "maxBatchSize",
  "faults",
  "defaults",
  "autoInstances",
  "instances",
  "loadBalancers",
  "routes",
];
const DEFAULT_POOL = ["203.0.113.0/24", "2001:db8:fa::/112"];

type Raw = Record<string, unknown>;

const isObject = (v: unknown): v is Raw => typeof v === "object" && v !== null && !Array.isArray(v);

/** Typed reads from one mapping; each bad field adds one problem naming `<field>.<key>`. */
class Fields {
  readonly #raw: Raw;
  readonly #field: string;
  readonly #problems: string[];

  constructor(raw: unknown, field: string, problems: string[]) {
    this.#raw = isObject(raw) ? raw : {};
    this.#field = field;
    this.#problems = problems;
    if (raw !== undefined && !isObject(raw)) this.problem("", "must be a mapping");
  }

  get raw(): Raw {
    return this.#raw;
  }

  problem(key: string, message: string): void {
    this.#problems.push(`${[this.#field, key].filter(Boolean).join(".")}: ${message}`);
  }

  str(key: string, fallback: string): string {
    const v = this.#raw[key];
    if (v === undefined) return fallback;
    if (typeof v !== "string") this.problem(key, "must be a string");
    return typeof v === "string" ? v : fallback;
  }

  num(key: string, [min, max]: readonly [number, number], fallback: number): number {
    const v = this.#raw[key];
    if (v === undefined) return fallback;
    if (typeof v !== "number" || v < min || v > max) this.problem(key, `must be a number from ${min} to ${max}`);
    return typeof v === "number" ? v : fallback;
  }

  bool(key: string, fallback: boolean): boolean {
    const v = this.#raw[key];
    if (v === undefined) return fallback;
    if (typeof v !== "boolean") this.problem(key, "must be true or false");
    return typeof v === "boolean" ? v : fallback;
  }

  /** Every entry of a mapping read as a duration. */
  durations(key: string): Record<string, number> | undefined {
    if (this.#raw[key] === undefined) return undefined;
    const nested = new Fields(this.#raw[key], [this.#field, key].filter(Boolean).join("."), this.#problems);
    return Object.fromEntries(Object.keys(nested.raw).map((op) => [op, nested.duration(op)]));
  }

  duration(key: string): number {
    const v = this.#raw[key];
    if (v === undefined) return 0;
    const ms = typeof v === "string" || typeof v === "number" ? parseDuration(String(v)) : undefined;
    if (ms === undefined || ms < 0) this.problem(key, `${JSON.stringify(v)} is not a duration such as 50ms`);
    return ms ?? 0;
  }

  oneOf<T extends string>(key: string, options: readonly T[], fallback: T | undefined): T | undefined {
    const v = this.#raw[key];
    if (v === undefined) return fallback;
    if (!options.includes(v as T)) this.problem(key, `must be one of ${options.join(", ")}`);
    return options.includes(v as T) ? (v as T) : fallback;
  }

  list(key: string): unknown[] {
    const v = this.#raw[key];
    if (v === undefined) return [];
    if (!Array.isArray(v)) this.problem(key, "must be a list");
    return Array.isArray(v) ? v : [];
  }
}

function readFaults(problems: string[], raw: unknown): Faults {
  const f = new Fields(raw, "faults", problems);
  const throttle = f.raw.throttle === undefined ? undefined : new Fields(f.raw.throttle, "faults.throttle", problems);
  return {
    latencyMs: f.duration("latency"),
    errorRate: f.num("errorRate", [0, 1], 0),
    throttle: throttle && { qps: throttle.num("qps", [0.001, 1e9], 1), burst: throttle.num("burst", [1, 1e9], 1) },
    failAll: f.oneOf("failAll", ["error", "throttle"], undefined),
    operationLatencyMs: f.durations("operationLatency"),
    crashAfterMs: f.raw.crashAfter === undefined ? undefined : f.duration("crashAfter"),
  };
}

function readAddresses(f: Fields, key: string): NodeAddress[] {
  return f.list(key).flatMap((a: unknown, i) => {
    if (isObject(a) && ADDRESS_TYPES.includes(a.type as NodeAddressType) && typeof a.address === "string") {
      return [{ type: a.type as NodeAddressType, address: a.address }];
    }
    f.problem(`${key}[${i}]`, `must be {type: ${ADDRESS_TYPES.join("|")}, address: string}`);
    return [];
  });
}

function readLabels(f: Fields, key: string): Record<string, string> {
  const v = f.raw[key];
  if (v === undefined) return {};
  if (isObject(v) && Object.values(v).every((x) => typeof x === "string")) return v as Record<string, string>;
  f.problem(key, "must map label keys to string values");
  return {};
}

function readInstance(problems: string[], raw: unknown, i: number, defaults: Defaults): FakeInstance | undefined {
  const f = new Fields(raw, `instances[${i}]`, problems);
  const name = f.str("name", "");
  if (name === "") {
    f.problem("name", "must be a non-empty string");
    return undefined;
  }
  return {
    name,
    providerID: f.str("providerID", `fake://${name}`),
    instanceType: f.str("instanceType", defaults.instanceType),
    zone: f.str("zone", defaults.zone),
    region: f.str("region", defaults.region),
    addresses: readAddresses(f, "addresses"),
    labels: readLabels(f, "labels"),
    state: f.oneOf("state", STATES, "running") ?? "running",
  };
}

function readPool(problems: string[], raw: unknown): { ipPool: string[]; hostnameSuffix: string } {
  const f = new Fields(raw, "loadBalancers", problems);
  const ipPool = f.raw.ipPool === undefined ? DEFAULT_POOL : f.list("ipPool").map(String);
  if (ipPool.length === 0) f.problem("ipPool", "must be a non-empty list of CIDRs");
  for (const cidr of ipPool) if (!parseCIDR(cidr)) f.problem("ipPool", `${JSON.stringify(cidr)} is not a CIDR`);
  return { ipPool, hostnameSuffix: f.str("hostnameSuffix", "") };
}

function readConfig(root: Fields, problems: string[]): FakeConfig {
  const d = new Fields(root.raw.defaults, "defaults", problems);
  const defaults: Defaults = {
    instanceType: d.str("instanceType", "fake.small"),
    zone: d.str("zone", "zone-a"),
    region: d.str("region", "region-1"),
  };
  const endpoint = root.str("endpoint", "");
  if (endpoint !== "" && !/^https?:\/\/[^/]+/.test(endpoint))
    root.problem("endpoint", `${JSON.stringify(endpoint)} is not an http(s) URL`);
  const pool = readPool(problems, root.raw.loadBalancers);
  return {
    endpoint,
    batching: root.bool("batching", true),
    maxBatchSize: root.num("maxBatchSize", [1, 10_000], 100),
    faults: readFaults(problems, root.raw.faults),
    defaults,
    autoInstances: root.bool("autoInstances", false),
    instances: root
      .list("instances")
      .map((item, i) => readInstance(problems, item, i, defaults))
      .filter((x) => x !== undefined),
    ipPool: pool.ipPool,
    hostnameSuffix: pool.hostnameSuffix,
    routes: root.bool("routes", true),
  };
}

export function parseFakeConfig(
  text: string | undefined,
): { ok: true; config: FakeConfig } | { ok: false; errors: string[] } {
  const parsed = parseConfigText(text);
  if ("error" in parsed) return { ok: false, errors: [parsed.error] };
  if (!isObject(parsed.raw)) return { ok: false, errors: ["must be a YAML or JSON mapping"] };
  const problems: string[] = [];
  for (const key of Object.keys(parsed.raw))
    if (!TOP_KEYS.includes(key)) problems.push(`${key}: unknown field (known: ${TOP_KEYS.join(", ")})`);
  const config = readConfig(new Fields(parsed.raw, "", problems), problems);
  return problems.length > 0 ? { ok: false, errors: problems } : { ok: true, config };
}
