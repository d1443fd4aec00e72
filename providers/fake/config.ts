/**
 * The fake cloud's cloud-config (YAML or JSON). Every problem is reported, each naming its field.
 *
 * ```yaml
 * endpoint: http://127.0.0.1:7070   # optional: share one cloud served by `cloud-controller-manager fake-cloud`
 * batching: true                    # offer the batched instance lookups (default true)
 * maxBatchSize: 100
 * faults: { latency: 50ms, errorRate: 0, throttle: { qps: 100, burst: 200 }, failAll: error|throttle,
 *           operationLatency: { EnsureLoadBalancerDeleted: 2s } }   # extra latency for single operations
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
 * loadBalancers: { ipPool: [203.0.113.0/24, 2001:db8:1::/120], hostnameSuffix: "" }
 * routes: true                      # offer the Routes capability (default true)
 * ```
 */
import { parseCIDR } from "../../src/net/ip.ts";
import { parseDuration } from "../../src/cli/values.ts";
import type { NodeAddress, NodeAddressType } from "../../src/kube/objects.ts";

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

const ADDRESS_TYPES: readonly NodeAddressType[] = ["Hostname", "InternalIP", "ExternalIP", "InternalDNS", "ExternalDNS"];
const STATES: readonly InstanceState[] = ["running", "stopped", "terminated"];
const TOP_KEYS = ["endpoint", "batching", "maxBatchSize", "faults", "defaults", "autoInstances", "instances", "loadBalancers", "routes"];

type Raw = Record<string, unknown>;

class Problems {
  readonly list: string[] = [];
  add(field: string, message: string): void {
    this.list.push(`${field}: ${message}`);
  }
}

const isObject = (v: unknown): v is Raw => typeof v === "object" && v !== null && !Array.isArray(v);

function str(p: Problems, raw: Raw, key: string, field: string, fallback: string): string {
  const v = raw[key];
  if (v === undefined) return fallback;
  if (typeof v !== "string") p.add(`${field}.${key}`, "must be a string");
  return typeof v === "string" ? v : fallback;
}

function num(p: Problems, raw: Raw, key: string, field: string, range: [number, number], fallback: number): number {
  const v = raw[key];
  if (v === undefined) return fallback;
  if (typeof v !== "number" || v < range[0] || v > range[1]) p.add(`${field}.${key}`, `must be a number from ${range[0]} to ${range[1]}`);
  return typeof v === "number" ? v : fallback;
}

function flag(p: Problems, raw: Raw, key: string, fallback: boolean): boolean {
  const v = raw[key];
  if (v === undefined) return fallback;
  if (typeof v !== "boolean") p.add(key, "must be true or false");
  return typeof v === "boolean" ? v : fallback;
}

function readFaults(p: Problems, raw: unknown): Faults {
  if (raw === undefined) return { latencyMs: 0, errorRate: 0 };
  if (!isObject(raw)) {
    p.add("faults", "must be a mapping");
    return { latencyMs: 0, errorRate: 0 };
  }
  const latencyMs = readLatency(p, raw.latency, "faults.latency");
  const failAll = raw.failAll;
  if (failAll !== undefined && failAll !== "error" && failAll !== "throttle") p.add("faults.failAll", "must be error or throttle");
  let throttle: Faults["throttle"];
  if (raw.throttle !== undefined) {
    if (!isObject(raw.throttle)) p.add("faults.throttle", "must be a mapping with qps and burst");
    else throttle = { qps: num(p, raw.throttle, "qps", "faults.throttle", [0.001, 1e9], 1), burst: num(p, raw.throttle, "burst", "faults.throttle", [1, 1e9], 1) };
  }
  const operationLatencyMs = readOperationLatency(p, raw.operationLatency);
  return { latencyMs, errorRate: num(p, raw, "errorRate", "faults", [0, 1], 0), throttle, failAll: failAll as Faults["failAll"], operationLatencyMs };
}

function readLatency(p: Problems, raw: unknown, field: string): number {
  if (raw === undefined) return 0;
  const text = typeof raw === "string" ? raw : JSON.stringify(raw);
  const ms = parseDuration(text);
  if (ms === undefined || ms < 0) p.add(field, `${JSON.stringify(text)} is not a duration such as 50ms`);
  return ms ?? 0;
}

function readOperationLatency(p: Problems, raw: unknown): Record<string, number> | undefined {
  if (raw === undefined) return undefined;
  if (!isObject(raw)) {
    p.add("faults.operationLatency", "must map operation names to durations");
    return undefined;
  }
  return Object.fromEntries(Object.entries(raw).map(([op, v]) => [op, readLatency(p, v, `faults.operationLatency.${op}`)]));
}

function readAddresses(p: Problems, raw: unknown, field: string): NodeAddress[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) {
    p.add(field, "must be a list of {type, address}");
    return [];
  }
  return raw.flatMap((a: unknown, i) => {
    if (!isObject(a) || !ADDRESS_TYPES.includes(a.type as NodeAddressType) || typeof a.address !== "string") {
      p.add(`${field}[${i}]`, `must be {type: ${ADDRESS_TYPES.join("|")}, address: string}`);
      return [];
    }
    return [{ type: a.type as NodeAddressType, address: a.address }];
  });
}

function readLabels(p: Problems, raw: unknown, field: string): Record<string, string> {
  if (raw === undefined) return {};
  if (!isObject(raw) || !Object.values(raw).every((v) => typeof v === "string")) {
    p.add(field, "must map label keys to string values");
    return {};
  }
  return raw as Record<string, string>;
}

function readInstance(p: Problems, raw: unknown, i: number, defaults: Defaults): FakeInstance | undefined {
  const field = `instances[${i}]`;
  if (!isObject(raw) || typeof raw.name !== "string" || raw.name === "") {
    p.add(field, "must be a mapping with a non-empty name");
    return undefined;
  }
  const state = raw.state === undefined ? "running" : raw.state;
  if (!STATES.includes(state as InstanceState)) p.add(`${field}.state`, `must be one of ${STATES.join(", ")}`);
  return {
    name: raw.name,
    providerID: str(p, raw, "providerID", field, `fake://${raw.name}`),
    instanceType: str(p, raw, "instanceType", field, defaults.instanceType),
    zone: str(p, raw, "zone", field, defaults.zone),
    region: str(p, raw, "region", field, defaults.region),
    addresses: readAddresses(p, raw.addresses, `${field}.addresses`),
    labels: readLabels(p, raw.labels, `${field}.labels`),
    state: state as InstanceState,
  };
}

function readLoadBalancers(p: Problems, raw: unknown): { ipPool: string[]; hostnameSuffix: string } {
  const fallback = { ipPool: ["203.0.113.0/24", "2001:db8:fa::/112"], hostnameSuffix: "" };
  if (raw === undefined) return fallback;
  if (!isObject(raw)) {
    p.add("loadBalancers", "must be a mapping");
    return fallback;
  }
  const pool = raw.ipPool === undefined ? fallback.ipPool : raw.ipPool;
  const ipPool = Array.isArray(pool) ? pool.map(String) : [];
  if (!Array.isArray(pool) || ipPool.length === 0) p.add("loadBalancers.ipPool", "must be a non-empty list of CIDRs");
  for (const cidr of ipPool) if (!parseCIDR(cidr)) p.add("loadBalancers.ipPool", `${JSON.stringify(cidr)} is not a CIDR`);
  return { ipPool, hostnameSuffix: str(p, raw, "hostnameSuffix", "loadBalancers", "") };
}

export function parseFakeConfig(text: string | undefined): { ok: true; config: FakeConfig } | { ok: false; errors: string[] } {
  const p = new Problems();
  let raw: unknown = {};
  if (text !== undefined && text.trim() !== "") {
    try {
      raw = Bun.YAML.parse(text);
    } catch (error) {
      return { ok: false, errors: [`not valid YAML or JSON: ${(error as Error).message}`] };
    }
  }
  if (!isObject(raw)) return { ok: false, errors: ["must be a YAML or JSON mapping"] };
  for (const key of Object.keys(raw)) if (!TOP_KEYS.includes(key)) p.add(key, `unknown field (known: ${TOP_KEYS.join(", ")})`);
  const rawDefaults = isObject(raw.defaults) ? raw.defaults : {};
  const defaults: Defaults = {
    instanceType: str(p, rawDefaults, "instanceType", "defaults", "fake.small"),
    zone: str(p, rawDefaults, "zone", "defaults", "zone-a"),
    region: str(p, rawDefaults, "region", "defaults", "region-1"),
  };
  const list = raw.instances === undefined ? [] : raw.instances;
  if (!Array.isArray(list)) p.add("instances", "must be a list");
  const instances = (Array.isArray(list) ? list : []).map((item, i) => readInstance(p, item, i, defaults)).filter((x) => x !== undefined);
  const endpoint = str(p, raw, "endpoint", "config", "");
  if (endpoint !== "" && !/^https?:\/\/[^/]+/.test(endpoint)) p.add("endpoint", `${JSON.stringify(endpoint)} is not an http(s) URL`);
  const lbs = readLoadBalancers(p, raw.loadBalancers);
  const config: FakeConfig = {
    endpoint,
    batching: flag(p, raw, "batching", true),
    maxBatchSize: num(p, raw, "maxBatchSize", "config", [1, 10_000], 100),
    faults: readFaults(p, raw.faults),
    defaults,
    autoInstances: flag(p, raw, "autoInstances", false),
    instances,
    ipPool: lbs.ipPool,
    hostnameSuffix: lbs.hostnameSuffix,
    routes: flag(p, raw, "routes", true),
  };
  return p.list.length > 0 ? { ok: false, errors: p.list } : { ok: true, config };
}
