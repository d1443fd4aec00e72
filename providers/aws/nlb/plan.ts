/**
 * What a Service's network load balancer should look like (cloud-provider-aws NLB rules), as pure
 * functions: one instance target group per port, named as upstream's (`targetGroupName`) so that any
 * change of what a target group cannot change in place (port, protocol, health-check protocol) gives a new
 * one; a listener per service port forwarding to it; health checks TCP on the traffic port, interval 30 s,
 * thresholds 3/3 (HTTP on the health-check NodePort, 10 s, 2/2 for `externalTrafficPolicy: Local`); and the
 * rules the backends' security groups need, marked by description so they can be found and removed.
 */
import { createHash } from "node:crypto";
import type { Service, ServicePort } from "../../../src/kube/objects.ts";
import type { LbOptions } from "../lb-annotations.ts";
import { k8sNamePrefix } from "../lb-names.ts";
import { usesTls, type ListenerOptions } from "../lb-listener-options.ts";
import type { SharedProbe } from "../elb/plan.ts";
import type { Rule } from "../lb-security-groups.ts";
import { checkAttributesForPorts } from "./target-group-attributes.ts";

export interface NlbHealthCheck {
  readonly protocol: string;
  /** "traffic-port" or a port number. */
  readonly port: string;
  readonly path?: string;
  readonly interval: number;
  readonly healthy: number;
  readonly unhealthy: number;
  readonly timeout?: number;
}

export interface NlbListenerSpec {
  readonly protocol: "TCP" | "UDP" | "TLS";
  readonly certificate?: string;
  readonly sslPolicy?: string;
  readonly alpnPolicy?: string;
}

export interface TargetGroupSpec {
  readonly name: string;
  readonly servicePort: number;
  readonly nodePort: number;
  /** What the NLB speaks to the targets: TLS with a certificate and `backend-protocol: ssl`. */
  readonly protocol: "TCP" | "UDP" | "TLS";
  readonly healthCheck: NlbHealthCheck;
  readonly listener: NlbListenerSpec;
  readonly attributes: Readonly<Record<string, string>>;
}

/** Upstream's Service checks for NLBs; throws with the reason. */
export function validateNlbService(service: Service): void {
  const spec = service.spec ?? {};
  if (spec.loadBalancerIP) throw new Error("spec.loadBalancerIP cannot be honoured by AWS load balancers; remove it");
  const protocols = new Set((spec.ports ?? []).map((p) => p.protocol ?? "TCP"));
  for (const protocol of protocols)
    if (protocol !== "TCP" && protocol !== "UDP")
      throw new Error(`protocol ${protocol}: network load balancers support TCP and UDP`);
  if (protocols.size > 1) throw new Error("mixed protocols are not supported for a network load balancer");
}

type BaseCheck = Omit<NlbHealthCheck, "timeout">;

/** No shared probe: each Service's own check (upstream's default `ServiceNodePort` mode). */
const OWN_PROBE: SharedProbe = { shared: false, port: 0, path: "" };

/**
 * Upstream's target group check: HTTP on the health-check NodePort for `externalTrafficPolicy: Local`;
 * else, in the shared probe mode (`ClusterServiceLoadBalancerHealthProbeMode = Shared`), HTTP on
 * kube-proxy's port and path; else TCP on the traffic port.
 */
function defaultCheck(service: Service, probe: SharedProbe): BaseCheck {
  const spec = service.spec ?? {};
  if (spec.externalTrafficPolicy === "Local" && (spec.healthCheckNodePort ?? 0) > 0) {
    return {
      protocol: "HTTP",
      port: String(spec.healthCheckNodePort),
      path: "/healthz",
      interval: 10,
      healthy: 2,
      unhealthy: 2,
    };
  }
  const shared = probe.shared ? { protocol: "HTTP", port: String(probe.port), path: probe.path } : undefined;
  return { protocol: "TCP", port: "traffic-port", interval: 30, healthy: 3, unhealthy: 3, ...shared };
}

export function nlbHealthCheck(service: Service, options: LbOptions, probe: SharedProbe = OWN_PROBE): NlbHealthCheck {
  const base = defaultCheck(service, probe);
  const hc = options.healthCheck;
  const protocol = hc.protocol ?? base.protocol;
  const path = protocol === "HTTP" || protocol === "HTTPS" ? (hc.path ?? base.path ?? "/") : undefined;
  const given = Object.fromEntries(
    Object.entries({
      interval: hc.interval,
      healthy: hc.healthyThreshold,
      unhealthy: hc.unhealthyThreshold,
      timeout: hc.timeout,
    }).filter(([, v]) => v !== undefined),
  );
  return { ...base, protocol, port: hc.port ?? base.port, path, ...given };
}

/** What every target group name of `service` starts with (other Services' may too). */
export const targetGroupPrefix = k8sNamePrefix;

/**
 * Upstream's `buildTargetGroupName`, to the byte, so that a cluster moving from cloud-provider-aws finds
 * and keeps its target groups: `k8s-<ns[:8]>-<name[:8]>-<sha1[:10]>` over the cluster ID, namespace,
 * name, service port, NodePort, target protocol, target type, health-check protocol and interval, written
 * one after another with no separator. Everything hashed is what a target group cannot change in place.
 */
export function targetGroupName(
  clusterID: string,
  service: Service,
  port: { servicePort: number; nodePort: number; protocol: string },
  hc: NlbHealthCheck,
): string {
  const { namespace = "", name } = service.metadata;
  const hash = createHash("sha1");
  for (const part of [clusterID, namespace, name, port.servicePort, port.nodePort, port.protocol, "instance"])
    hash.update(String(part));
  hash.update(hc.protocol).update(String(hc.interval));
  return `${targetGroupPrefix(service)}${hash.digest("hex").slice(0, 10)}`;
}

export function desiredTargetGroups(
  clusterID: string,
  service: Service,
  options: LbOptions,
  probe: SharedProbe = OWN_PROBE,
): TargetGroupSpec[] {
  const hc = nlbHealthCheck(service, options, probe);
  checkAttributesForPorts(options.targetGroupAttributes, service.spec?.ports ?? []);
  const ports = (service.spec?.ports ?? []).filter((p) => (p.nodePort ?? 0) > 0);
  if (ports.length === 0)
    throw new Error("the Service has no port with a NodePort: a network load balancer needs one to forward to");
  return ports.map((p) => {
    const listener = nlbListener(p, options.listener);
    const protocol =
      listener.protocol === "TLS" && options.listener.backendProtocol !== "ssl" ? "TCP" : listener.protocol;
    const name = targetGroupName(clusterID, service, { servicePort: p.port, nodePort: p.nodePort!, protocol }, hc);
    return {
      name,
      servicePort: p.port,
      nodePort: p.nodePort!,
      protocol,
      healthCheck: hc,
      listener,
      attributes: options.targetGroupAttributes,
    };
  });
}

/**
 * Upstream: a TCP port in `ssl-ports` with a certificate is a TLS listener, with the negotiation policy as its
 * SslPolicy.
 */
export function nlbListener(port: ServicePort, options: ListenerOptions): NlbListenerSpec {
  if (port.protocol === "UDP") return { protocol: "UDP" };
  if (!options.tls || !usesTls(options.tls, port)) return { protocol: "TCP" };
  return {
    protocol: "TLS",
    certificate: options.tls.certificate,
    ...(options.tls.policy ? { sslPolicy: options.tls.policy } : {}),
    ...(options.alpnPolicy ? { alpnPolicy: options.alpnPolicy } : {}),
  };
}

export const ruleDescription = (kind: "client" | "health", lbName: string): string =>
  `kubernetes.io/rule/nlb/${kind}=${lbName}`;

/**
 * The ICMP fragmentation-needed rule is one per source range for every NLB, as cloud-provider-aws's
 * `kubernetes.io/rule/nlb/mtu`: EC2 refuses a second copy of a rule that differs only in its
 * description, so a rule of each NLB's own made every NLB after the first fail to sync.
 */
export const MTU_RULE_DESCRIPTION = "kubernetes.io/rule/nlb/mtu";

/**
 * Backend security-group rules for an NLB (it keeps client addresses): clients reach the NodePorts from
 * the source ranges, the NLB's health checks come from its subnets, ICMP fragmentation-needed from the
 * source ranges.
 */
export function nlbNodeRules(
  lbName: string,
  groups: readonly TargetGroupSpec[],
  sourceRanges: readonly string[],
  subnetCidrs: readonly string[],
): Rule[] {
  const rules: Rule[] = [];
  for (const cidr of sourceRanges) {
    for (const g of groups)
      rules.push({
        protocol: g.protocol === "UDP" ? "udp" : "tcp",
        from: g.nodePort,
        to: g.nodePort,
        source: { cidr },
        description: ruleDescription("client", lbName),
      });
    if (!cidr.includes(":"))
      rules.push({ protocol: "icmp", from: 3, to: 4, source: { cidr }, description: MTU_RULE_DESCRIPTION });
  }
  for (const cidr of subnetCidrs) {
    for (const port of new Set(
      groups.map((g) => (g.healthCheck.port === "traffic-port" ? g.nodePort : Number(g.healthCheck.port))),
    )) {
      rules.push({
        protocol: "tcp",
        from: port,
        to: port,
        source: { cidr },
        description: ruleDescription("health", lbName),
      });
    }
  }
  return rules;
}

/**
 * Ingress on the NLB's managed security group, as upstream's `ensureNLBSecurityGroupRules`: each listener
 * port from the source ranges, and ICMP fragmentation-needed (path MTU discovery) from the IPv4 ones.
 */
export function nlbFrontendRules(groups: readonly TargetGroupSpec[], sourceRanges: readonly string[]): Rule[] {
  return sourceRanges.flatMap((cidr): Rule[] => [
    ...groups.map((g): Rule => {
      const protocol = g.protocol === "UDP" ? "udp" : "tcp";
      return { protocol, from: g.servicePort, to: g.servicePort, source: { cidr } };
    }),
    ...(cidr.includes(":") ? [] : [{ protocol: "icmp", from: 3, to: 4, source: { cidr } }]),
  ]);
}
