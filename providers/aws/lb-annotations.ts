/**
 * The `service.beta.kubernetes.io/aws-load-balancer-*` annotations this provider honours, parsed once into
 * an `LbOptions` (classic ELB by default, NLB with `type: nlb`). A bad value throws an Error naming the
 * annotation and the value (the service controller turns it into a Warning event and retries); an
 * annotation that cannot hurt when ignored (it only matters for the other kind of load balancer, or is
 * unknown) becomes a warning. An annotation whose silent absence would change what the Service gets (TLS,
 * proxy protocol, fixed NLB addresses) is refused like a bad value.
 */
import { ImplementedElsewhereError } from "../../src/cloud/errors.ts";
import type { ServiceWarning } from "../../src/cloud/provider.ts";
import type { Service } from "../../src/kube/objects.ts";
import { parseBool } from "../../src/config/values.ts";
import { parseCIDR } from "../../src/net/ip.ts";
import {
  badAnnotation as bad,
  PREFIX,
  readBool,
  readInt,
  readList,
  readMap,
  type Read,
} from "./lb-annotation-values.ts";
import { readListenerOptions, unmatchedSslPorts, type ListenerOptions } from "./lb-listener-options.ts";
import { NO_FIXED_ADDRESSES, readFixedAddresses, type FixedAddresses } from "./nlb/addresses.ts";
import { readTargetGroupAttributes } from "./nlb/target-group-attributes.ts";

export { PREFIX };

export const SOURCE_RANGES = "service.beta.kubernetes.io/load-balancer-source-ranges";

export interface HealthCheckOptions {
  readonly protocol?: string;
  /** "traffic-port" or a port number. */
  readonly port?: string;
  readonly path?: string;
  readonly healthyThreshold?: number;
  readonly unhealthyThreshold?: number;
  readonly timeout?: number;
  readonly interval?: number;
}

export type LbKind = "elb" | "nlb";

export interface LbOptions {
  /** Classic ELB, or a network load balancer (`type: nlb`). */
  readonly kind: LbKind;
  readonly internal: boolean;
  readonly sourceRanges: readonly string[];
  readonly healthCheck: HealthCheckOptions;
  readonly extraTags: Readonly<Record<string, string>>;
  readonly crossZone?: boolean;
  readonly drainingEnabled?: boolean;
  readonly drainingTimeout?: number;
  readonly idleTimeout?: number;
  readonly accessLog: {
    readonly enabled?: boolean;
    readonly interval?: number;
    readonly bucket?: string;
    readonly prefix?: string;
  };
  readonly securityGroups: readonly string[];
  readonly extraSecurityGroups: readonly string[];
  readonly subnets: readonly string[];
  readonly targetNodeLabels: Readonly<Record<string, string>>;
  /** TLS, backend protocol and proxy protocol. */
  readonly listener: ListenerOptions;
  /** NLB: whether the backends' groups get the client, health and MTU rules (`manage-backend-security-group-rules`). */
  readonly manageBackendRules: boolean;
  /** NLB fixed addresses (none for classic ELBs). */
  readonly fixedAddresses: FixedAddresses;
  /** NLB target group attributes (empty for classic ELBs). */
  readonly targetGroupAttributes: Readonly<Record<string, string>>;
  readonly warnings: readonly ServiceWarning[];
}

const NLB_ONLY = [
  "eip-allocations",
  "private-ipv4-addresses",
  "target-group-attributes",
  "nlb-target-type",
  "manage-backend-security-group-rules",
  "ip-address-type",
  "alpn-policy",
];
const ELB_ONLY = [
  "connection-draining-enabled",
  "connection-draining-timeout",
  "connection-idle-timeout",
  "access-log-emit-interval",
];
/** Both kinds: the classic ELB's AccessLog, the NLB's `access_logs.s3.*` (upstream's reconcileLBAttributes). */
const ACCESS_LOG = ["access-log-enabled", "access-log-s3-bucket-name", "access-log-s3-bucket-prefix"];
const REFUSED: Readonly<Record<LbKind, Readonly<Record<string, string>>>> = {
  elb: {},
  nlb: {
    "extra-security-groups": "network load balancers take their groups from security-groups only (as upstream)",
  },
};
const HANDLED = [
  "type",
  "internal",
  "healthcheck-protocol",
  "healthcheck-port",
  "healthcheck-path",
  "healthcheck-healthy-threshold",
  "healthcheck-unhealthy-threshold",
  "healthcheck-timeout",
  "healthcheck-interval",
  "additional-resource-tags",
  "cross-zone-load-balancing-enabled",
  "security-groups",
  "extra-security-groups",
  "subnets",
  "target-node-labels",
  "backend-protocol",
  "ssl-cert",
  "ssl-ports",
  "ssl-negotiation-policy",
  "proxy-protocol",
  "alpn-policy",
  "target-group-attributes",
  "eip-allocations",
  "private-ipv4-addresses",
  "manage-backend-security-group-rules",
  ...ACCESS_LOG,
  ...ELB_ONLY,
];

/** Upstream reads these only when non-empty, so "" (as Helm charts often render) is as good as absent. */
const EMPTY_IS_ABSENT: readonly string[] = [
  "proxy-protocol",
  "healthcheck-path",
  "backend-protocol",
  "ssl-cert",
  "cross-zone-load-balancing-enabled",
  ...ACCESS_LOG,
  ...ELB_ONLY,
];

/** Classic ELB unless the type annotation says `nlb`; the AWS Load Balancer Controller's types are not ours. */
function kindOf(read: Read): LbKind {
  const type = read("type");
  if (type === undefined || type === "" || type === "clb" || type === "elb") return "elb";
  if (type === "nlb") return "nlb";
  if (type === "nlb-ip" || type === "external")
    throw new ImplementedElsewhereError(`${PREFIX}type=${type} is handled by the AWS Load Balancer Controller`);
  throw bad("type", type, "expected nlb, nlb-ip or external (or none for a classic ELB)");
}

function warning(key: string, why: string): ServiceWarning {
  return { reason: "UnsupportedAnnotation", message: `annotation ${key} ${why}` };
}

/**
 * Upstream's meaning: internal unless empty or exactly "false", so "maybe" (or "False") still asks for
 * an internal scheme; a value that is not a boolean, or a false not spelled "false", gets a Warning event
 * saying how it was read.
 */
function readInternal(read: Read, warnings: ServiceWarning[]): boolean {
  const value = read("internal");
  const internal = value !== undefined && value !== "" && value !== "false";
  const parsed = value === undefined ? undefined : parseBool(value);
  if (internal && parsed !== true) {
    const what = parsed === false ? 'is not "false"' : "is not a boolean";
    warnings.push({
      reason: "InvalidAnnotation",
      message: `annotation ${PREFIX}internal: ${JSON.stringify(value)} ${what}; read as true (internal unless empty or "false"), as upstream`,
    });
  }
  return internal;
}

function checkRefusedAndUnknown(annotations: Readonly<Record<string, string>>, kind: LbKind): ServiceWarning[] {
  const warnings: ServiceWarning[] = [];
  const refused = REFUSED[kind];
  const foreign = kind === "elb" ? NLB_ONLY : ELB_ONLY;
  const other =
    kind === "elb"
      ? "network load balancers; ignored for this classic ELB"
      : "classic ELBs; ignored for this network load balancer";
  for (const [key, value] of Object.entries(annotations)) {
    if (!key.startsWith(PREFIX)) continue;
    const name = key.slice(PREFIX.length);
    if (refused[name]) throw bad(name, value, refused[name]);
    if (foreign.includes(name)) warnings.push(warning(key, `only applies to ${other}`));
    else if (!HANDLED.includes(name)) warnings.push(warning(key, "is not supported by this provider; ignored"));
  }
  return warnings;
}

function healthCheckProtocol(read: Read): string | undefined {
  const protocol = read("healthcheck-protocol")?.toUpperCase();
  if (protocol !== undefined && !["TCP", "HTTP", "HTTPS", "SSL"].includes(protocol))
    throw bad("healthcheck-protocol", protocol, "expected TCP, HTTP, HTTPS or SSL");
  return protocol;
}

function healthCheckPort(read: Read): string | undefined {
  const port = read("healthcheck-port");
  if (port === undefined || port === "traffic-port") return port;
  if (!/^\d+$/.test(port) || Number(port) < 1 || Number(port) > 65535)
    throw bad("healthcheck-port", port, "expected traffic-port or a port from 1 to 65535");
  return port;
}

function healthCheckPath(read: Read): string | undefined {
  const path = read("healthcheck-path");
  if (path !== undefined && !/^\/\S{0,1023}$/.test(path))
    throw bad("healthcheck-path", path, "expected an absolute path");
  return path;
}

function defaultInterval(kind: LbKind, service: Service): number {
  const spec = service.spec ?? {};
  const local = spec.externalTrafficPolicy === "Local" && (spec.healthCheckNodePort ?? 0) > 0;
  return kind === "nlb" && !local ? 30 : 10;
}

/**
 * Checked against the kind's own defaults: a classic ELB times out after 5 s of 10 (timeouts up to 60 s);
 * an NLB's target groups check every 30 s (10 s on the health-check NodePort of a Local Service), with
 * AWS's timeout unless one is given (up to 120 s).
 */
function healthCheck(read: Read, kind: LbKind, service: Service): HealthCheckOptions {
  const nlb = kind === "nlb";
  const hc: HealthCheckOptions = {
    protocol: healthCheckProtocol(read),
    port: healthCheckPort(read),
    path: healthCheckPath(read),
    healthyThreshold: readInt(read, "healthcheck-healthy-threshold", 2, 10),
    unhealthyThreshold: readInt(read, "healthcheck-unhealthy-threshold", 2, 10),
    timeout: readInt(read, "healthcheck-timeout", 2, nlb ? 120 : 60),
    interval: readInt(read, "healthcheck-interval", 5, 300),
  };
  const timeout = hc.timeout ?? (nlb ? undefined : 5);
  const interval = hc.interval ?? defaultInterval(kind, service);
  if (timeout !== undefined && timeout >= interval)
    throw bad("healthcheck-timeout", String(timeout), `must be less than the interval (${interval} s)`);
  return hc;
}

function sourceRanges(service: Service): string[] {
  const fromSpec = service.spec?.loadBalancerSourceRanges ?? [];
  const raw = fromSpec.length > 0 ? fromSpec : (service.metadata.annotations?.[SOURCE_RANGES] ?? "").split(",");
  const ranges = raw.map((r) => r.trim()).filter((r) => r !== "");
  for (const r of ranges) {
    if (!parseCIDR(r))
      throw new Error(
        `${fromSpec.length > 0 ? "spec.loadBalancerSourceRanges" : `annotation ${SOURCE_RANGES}`}: invalid value ${JSON.stringify(r)}: not a CIDR`,
      );
  }
  return ranges.length > 0 ? ranges : ["0.0.0.0/0"];
}

function extraTags(read: Read): Record<string, string> {
  const tags = readMap(read, "additional-resource-tags", true);
  for (const [k, v] of Object.entries(tags)) {
    if (k.toLowerCase().startsWith("aws:"))
      throw bad("additional-resource-tags", k, "tag keys starting with aws: are reserved");
    if (k.length > 127 || v.length > 255)
      throw bad("additional-resource-tags", k, "tag keys are at most 127 and values at most 255 characters");
  }
  return tags;
}

type NlbOnly = Pick<LbOptions, "manageBackendRules" | "fixedAddresses" | "targetGroupAttributes">;

function nlbOptions(read: Read, kind: LbKind, o: { internal: boolean; proxyProtocol: boolean }): NlbOnly {
  if (kind !== "nlb")
    return { manageBackendRules: true, fixedAddresses: NO_FIXED_ADDRESSES, targetGroupAttributes: {} };
  const protocol = read("healthcheck-protocol");
  if (protocol?.toUpperCase() === "SSL")
    throw bad("healthcheck-protocol", protocol, "network load balancer target groups check TCP, HTTP or HTTPS");
  return {
    manageBackendRules: readBool(read, "manage-backend-security-group-rules") !== false,
    fixedAddresses: readFixedAddresses(read, o.internal),
    targetGroupAttributes: readTargetGroupAttributes(read, o.proxyProtocol),
  };
}

/** The Service's annotations of this provider, by name without the prefix, as written. */
function annotationsOf(service: Service): Read {
  return (name) => service.metadata.annotations?.[`${PREFIX}${name}`];
}

/**
 * What the node-change path needs (upstream's UpdateLoadBalancer reads only target-node-labels), read
 * without the other annotations, so a refused one does not keep backends from following the nodes.
 */
export function nodeSelection(service: Service): Pick<LbOptions, "targetNodeLabels" | "securityGroups"> {
  return {
    targetNodeLabels: readMap(annotationsOf(service), "target-node-labels", true),
    securityGroups: annotatedGroups(service),
  };
}

/** The `security-groups` annotation's groups; never throws, so a deletion can read it. */
export function annotatedGroups(service: Service): string[] {
  return readList(annotationsOf(service), "security-groups");
}

/** Whether the Service asks for a classic ELB; never throws (a refused type: no). */
export function asksForClassic(service: Service): boolean {
  try {
    return kindOf(annotationsOf(service)) === "elb";
  } catch {
    return false;
  }
}

/** Everything the annotations ask of this Service's ELB; throws on a bad value. */
export function parseLbOptions(service: Service): LbOptions {
  const annotations = service.metadata.annotations ?? {};
  const read: Read = (name) => {
    const value = annotations[`${PREFIX}${name}`];
    return value === "" && EMPTY_IS_ABSENT.includes(name) ? undefined : value;
  };
  const kind = kindOf(read);
  const warnings = checkRefusedAndUnknown(annotations, kind);
  const listener = readListenerOptions(read, kind === "nlb", warnings);
  warnings.push(...unmatchedSslPorts(listener.tls, service.spec?.ports ?? []));
  const internal = readInternal(read, warnings);
  const interval = readInt(read, "access-log-emit-interval", 5, 60);
  if (interval !== undefined && interval !== 5 && interval !== 60)
    throw bad("access-log-emit-interval", String(interval), "expected 5 or 60 (minutes)");
  const securityGroups = readList(read, "security-groups");
  const extraSecurityGroups = readList(read, "extra-security-groups");
  for (const [name, list] of [
    ["security-groups", securityGroups],
    ["extra-security-groups", extraSecurityGroups],
  ] as const) {
    for (const sg of list) if (!/^sg-[0-9a-f]+$/.test(sg)) throw bad(name, sg, "not a security group ID (sg-…)");
  }
  return {
    kind,
    internal,
    sourceRanges: sourceRanges(service),
    healthCheck: healthCheck(read, kind, service),
    extraTags: extraTags(read),
    crossZone: readBool(read, "cross-zone-load-balancing-enabled"),
    drainingEnabled: readBool(read, "connection-draining-enabled"),
    drainingTimeout: readInt(read, "connection-draining-timeout", 1, 3600),
    idleTimeout: readInt(read, "connection-idle-timeout", 1, 4000),
    accessLog: {
      enabled: readBool(read, "access-log-enabled"),
      interval,
      bucket: read("access-log-s3-bucket-name"),
      prefix: read("access-log-s3-bucket-prefix"),
    },
    securityGroups,
    extraSecurityGroups,
    subnets: readList(read, "subnets"),
    // `role` or `role=`: the label present, whatever its value (upstream's filterTargetNodes)
    targetNodeLabels: readMap(read, "target-node-labels", true),
    listener,
    ...nlbOptions(read, kind, { internal, proxyProtocol: listener.proxyProtocol }),
    warnings,
  };
}
