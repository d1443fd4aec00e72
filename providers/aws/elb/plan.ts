/**
 * What a Service's classic ELB should look like, and how far the actual one is from it: pure functions
 * (cloud-provider-aws `aws_loadbalancer.go` rules). Listeners go LB port → NodePort (see `listenerFor`); the health
 * check defaults to `TCP:<first NodePort>` (`SSL:` with an https or ssl backend protocol; HTTP on the
 * health-check NodePort for `externalTrafficPolicy: Local`, or kube-proxy's port in the shared probe mode),
 * thresholds 2/6, timeout 5 s, interval 10 s; attributes default to no cross-zone, no draining, idle
 * timeout 60 s, no access log.
 */
import type {
  AccessLog,
  HealthCheck,
  Listener,
  ListenerDescription,
  LoadBalancerAttributes,
} from "@aws-sdk/client-elastic-load-balancing";
import type { Service, ServicePort } from "../../../src/kube/objects.ts";
import type { LbOptions } from "../lb-annotations.ts";
import { usesTls, type BackendProtocol, type ListenerOptions } from "../lb-listener-options.ts";

export interface SharedProbe {
  readonly shared: boolean;
  readonly port: number;
  readonly path: string;
}

/** Upstream's Service checks for ELBs; throws with the reason. */
export function validateService(service: Service): void {
  const spec = service.spec ?? {};
  if (spec.loadBalancerIP) throw new Error("spec.loadBalancerIP cannot be honoured by AWS load balancers; remove it");
  if (spec.sessionAffinity && spec.sessionAffinity !== "None")
    throw new Error(`spec.sessionAffinity ${spec.sessionAffinity} is not supported by classic ELBs (only None)`);
  for (const port of spec.ports ?? []) {
    if ((port.protocol ?? "TCP") !== "TCP")
      throw new Error(`port ${port.port}/${port.protocol}: classic ELBs only support TCP`);
  }
}

const NO_LISTENER_OPTIONS: ListenerOptions = { proxyProtocol: false };

/** Listener protocol for a TLS port by backend protocol (upstream `backendProtocolMapping`). */
const TLS_FRONTEND: Readonly<Record<BackendProtocol, string>> = {
  http: "HTTPS",
  https: "HTTPS",
  ssl: "SSL",
  tcp: "SSL",
};

/**
 * Upstream `buildListener`: a TLS port is SSL → TCP without a backend protocol, else HTTPS or SSL by the
 * backend protocol, carrying the certificate; any other port is TCP, or HTTP → HTTP when the backend
 * protocol is http.
 */
function listenerFor(port: ServicePort, options: ListenerOptions): Listener {
  const base = { LoadBalancerPort: port.port, InstancePort: port.nodePort! };
  const backend = options.backendProtocol;
  if (options.tls && usesTls(options.tls, port)) {
    const frontend = backend ? TLS_FRONTEND[backend] : "SSL";
    return {
      Protocol: frontend,
      ...base,
      InstanceProtocol: (backend ?? "tcp").toUpperCase(),
      SSLCertificateId: options.tls.certificate,
    };
  }
  const protocol = backend === "http" ? "HTTP" : "TCP";
  return { Protocol: protocol, ...base, InstanceProtocol: protocol };
}

export function desiredListeners(service: Service, options: ListenerOptions = NO_LISTENER_OPTIONS): Listener[] {
  const ports = (service.spec?.ports ?? []).filter((p) => (p.nodePort ?? 0) > 0);
  if (ports.length === 0) throw new Error("the Service has no port with a NodePort: an ELB needs one to forward to");
  return ports.map((p) => listenerFor(p, options));
}

/** Upstream's default: TCP on the first NodePort, SSL when the backends speak TLS (`backend-protocol`). */
function defaultProbe(
  service: Service,
  listeners: readonly Listener[],
  on: { probe: SharedProbe; backend?: BackendProtocol },
): { protocol: string; port: number; path: string } {
  const spec = service.spec ?? {};
  if (spec.externalTrafficPolicy === "Local" && (spec.healthCheckNodePort ?? 0) > 0)
    return { protocol: "HTTP", port: spec.healthCheckNodePort!, path: "/healthz" };
  if (on.probe.shared) return { protocol: "HTTP", port: on.probe.port, path: on.probe.path };
  const tls = on.backend === "https" || on.backend === "ssl";
  return { protocol: tls ? "SSL" : "TCP", port: listeners[0]?.InstancePort ?? 0, path: "" };
}

const HEALTH_CHECK_DEFAULTS = { HealthyThreshold: 2, UnhealthyThreshold: 6, Timeout: 5, Interval: 10 };

function probePort(port: string | undefined, fallback: number, trafficPort: number): number {
  if (port === undefined) return fallback;
  return port === "traffic-port" ? trafficPort : Number(port);
}

export function desiredHealthCheck(
  service: Service,
  listeners: readonly Listener[],
  options: LbOptions,
  probe: SharedProbe,
): HealthCheck {
  const base = defaultProbe(service, listeners, { probe, backend: options.listener.backendProtocol });
  const hc = options.healthCheck;
  const protocol = hc.protocol ?? base.protocol;
  const port = probePort(hc.port, base.port, listeners[0]?.InstancePort ?? base.port);
  const path = protocol === "HTTP" || protocol === "HTTPS" ? (hc.path ?? (base.path || "/")) : "";
  const tuning = {
    HealthyThreshold: hc.healthyThreshold,
    UnhealthyThreshold: hc.unhealthyThreshold,
    Timeout: hc.timeout,
    Interval: hc.interval,
  };
  const given = Object.fromEntries(Object.entries(tuning).filter(([, v]) => v !== undefined));
  return { Target: `${protocol}:${port}${path}`, ...HEALTH_CHECK_DEFAULTS, ...given };
}

export function healthCheckDiffers(actual: HealthCheck | undefined, desired: HealthCheck): boolean {
  if (!actual) return true;
  return (["Target", "HealthyThreshold", "UnhealthyThreshold", "Timeout", "Interval"] as const).some(
    (k) => actual[k] !== desired[k],
  );
}

export function desiredAttributes(options: LbOptions): LoadBalancerAttributes {
  const draining = options.drainingEnabled ?? false;
  const log = options.accessLog;
  return {
    CrossZoneLoadBalancing: { Enabled: options.crossZone ?? false },
    ConnectionDraining: { Enabled: draining, ...(draining ? { Timeout: options.drainingTimeout ?? 300 } : {}) },
    ConnectionSettings: { IdleTimeout: options.idleTimeout ?? 60 },
    AccessLog: log.enabled
      ? {
          Enabled: true,
          EmitInterval: log.interval ?? 60,
          S3BucketName: log.bucket ?? "",
          S3BucketPrefix: log.prefix ?? "",
        }
      : { Enabled: false },
  };
}

/**
 * Compares only the typed fields this provider sets. `AdditionalAttributes` is ignored: AWS keeps its own
 * entries there (`elb.http.desyncmitigationmode`), so a deep comparison would never converge.
 */
export function attributesDiffer(actual: LoadBalancerAttributes | undefined, desired: LoadBalancerAttributes): boolean {
  return comparable(actual) !== comparable(desired);
}

function comparable(a: LoadBalancerAttributes | undefined): string {
  const draining = a?.ConnectionDraining;
  return JSON.stringify([
    a?.CrossZoneLoadBalancing?.Enabled === true,
    draining?.Enabled === true ? draining.Timeout : "off",
    a?.ConnectionSettings?.IdleTimeout,
    comparableLog(a?.AccessLog),
  ]);
}

function comparableLog(log: AccessLog | undefined): unknown {
  if (log?.Enabled !== true) return "off";
  return [log.EmitInterval, log.S3BucketName ?? "", log.S3BucketPrefix ?? ""];
}

const listenerKey = (l: Listener): string =>
  `${l.Protocol?.toUpperCase()}:${l.LoadBalancerPort}->${l.InstanceProtocol?.toUpperCase()}:${l.InstancePort}:${l.SSLCertificateId ?? ""}`;

/** LB ports to delete (gone or changed) and listeners to create (new or changed). */
export function listenerChanges(
  actual: readonly ListenerDescription[],
  desired: readonly Listener[],
): { remove: number[]; add: Listener[] } {
  const have = actual.flatMap((d) => (d.Listener ? [d.Listener] : []));
  const want = new Set(desired.map(listenerKey));
  const keep = new Set(have.filter((l) => want.has(listenerKey(l))).map(listenerKey));
  return {
    remove: have.filter((l) => !want.has(listenerKey(l))).map((l) => l.LoadBalancerPort!),
    add: desired.filter((l) => !keep.has(listenerKey(l))),
  };
}
