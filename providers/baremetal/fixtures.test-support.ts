/** Builders for the bare-metal provider's tests: Services, Nodes and settings in a line each. */
import type { Node, Service } from "../../src/kube/objects.ts";
import { Problems } from "./config-reader.ts";
import { ANNOTATION_ADDRESS_POOL, ANNOTATION_REQUESTED_IPS, parseLoadBalancers, type LoadBalancerSettings } from "./pools-config.ts";

export const SHARE = "baremetal.cloudprovider.io/sharing-key";
export const KUBE_VIP = "kube-vip.io/loadbalancerIPs";

export interface ServiceOptions {
  readonly ns?: string;
  readonly families?: ("IPv4" | "IPv6")[];
  readonly policy?: "SingleStack" | "PreferDualStack" | "RequireDualStack";
  /** `spec.loadBalancerIP`. */
  readonly lbIP?: string;
  /** The requested-addresses annotation. */
  readonly ips?: string;
  readonly pool?: string;
  readonly share?: string;
  /** `TCP/80` or a bare port number (TCP). */
  readonly ports?: readonly (number | string)[];
  readonly local?: Record<string, string>;
  readonly status?: readonly string[];
  readonly announced?: string;
  readonly deleting?: boolean;
  readonly type?: "LoadBalancer" | "ClusterIP";
  readonly created?: string;
  readonly uid?: string;
}

function annotationsOf(o: ServiceOptions): Record<string, string> {
  const a: Record<string, string> = {};
  if (o.ips !== undefined) a[ANNOTATION_REQUESTED_IPS] = o.ips;
  if (o.pool !== undefined) a[ANNOTATION_ADDRESS_POOL] = o.pool;
  if (o.share !== undefined) a[SHARE] = o.share;
  if (o.announced !== undefined) a[KUBE_VIP] = o.announced;
  return a;
}

function portsOf(o: ServiceOptions): NonNullable<Service["spec"]>["ports"] {
  return (o.ports ?? [80]).map((p) => {
    const [protocol, port] = typeof p === "number" ? ["TCP", p] : [p.split("/")[0], Number(p.split("/")[1])];
    return { protocol: protocol as "TCP" | "UDP", port: port as number };
  });
}

export function service(name: string, o: ServiceOptions = {}): Service {
  const ns = o.ns ?? "default";
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: {
      name,
      namespace: ns,
      uid: o.uid ?? `uid-${ns}-${name}`,
      creationTimestamp: o.created ?? "2026-01-01T00:00:00Z",
      annotations: annotationsOf(o),
      ...(o.deleting ? { deletionTimestamp: "2026-01-02T00:00:00Z", finalizers: ["service.kubernetes.io/load-balancer-cleanup"] } : {}),
    },
    spec: {
      type: o.type ?? "LoadBalancer",
      ports: portsOf(o),
      selector: o.local ?? { app: name },
      ...(o.local ? { externalTrafficPolicy: "Local" as const } : {}),
      ...(o.families ? { ipFamilies: o.families, ipFamilyPolicy: o.policy ?? (o.families.length > 1 ? "RequireDualStack" : "SingleStack") } : {}),
      ...(o.lbIP ? { loadBalancerIP: o.lbIP } : {}),
    },
    status: { loadBalancer: o.status ? { ingress: o.status.map((ip) => ({ ip })) } : {} },
  };
}

export function node(name: string, o: { providerID?: string } = {}): Node {
  return { apiVersion: "v1", kind: "Node", metadata: { name }, spec: o.providerID ? { providerID: o.providerID } : {} };
}

/** Settings from the `loadBalancers` section as YAML; throws on a config problem. */
export function settingsFrom(yaml: string): LoadBalancerSettings {
  const p = new Problems();
  const settings = parseLoadBalancers(p, Bun.YAML.parse(yaml));
  if (!settings || p.list.length > 0) throw new Error(`bad settings: ${p.list.join("; ")}`);
  return settings;
}
