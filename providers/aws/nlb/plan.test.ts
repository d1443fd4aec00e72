import { describe, expect, test } from "bun:test";
import type { Service } from "../../../src/kube/objects.ts";
import { parseLbOptions } from "../lb-annotations.ts";
import { ruleKey } from "../lb-security-groups.ts";
import {
  desiredTargetGroups,
  nlbFrontendRules,
  nlbHealthCheck,
  nlbNodeRules,
  targetGroupName,
  validateNlbService,
} from "./plan.ts";

const P = "service.beta.kubernetes.io/aws-load-balancer-";

function service(spec: Partial<NonNullable<Service["spec"]>> = {}, annotations: Record<string, string> = {}): Service {
  return {
    metadata: {
      name: "resolver-frontend",
      namespace: "networking",
      uid: "u",
      annotations: { [`${P}type`]: "nlb", ...annotations },
    },
    spec: { type: "LoadBalancer", ports: [{ port: 53, nodePort: 30053 }], ...spec },
  };
}

describe("NLB plan", () => {
  test("annotations select the NLB kind and keep ELB-only ones as warnings", () => {
    const options = parseLbOptions(service({}, { [`${P}connection-draining-enabled`]: "true" }));
    expect(options.kind).toBe("nlb");
    expect(options.warnings.map((w) => w.message)).toEqual([
      `annotation ${P}connection-draining-enabled only applies to classic ELBs; ignored for this network load balancer`,
    ]);
    expect(() => parseLbOptions(service({}, { [`${P}extra-security-groups`]: "sg-1" }))).toThrow(
      /extra-security-groups: invalid value "sg-1": network load balancers take their groups from security-groups only/,
    );
  });

  // Upstream's buildTargetGroupName, by hand: sha1 of cluster ID, namespace, name, service port, NodePort,
  // target protocol, "instance", health-check protocol and interval, written one after another:
  //   printf '%s' c1networkingresolver-frontend5330053TCPinstanceTCP30 | sha1sum   → a8ec9c6886…
  //   printf '%s' kubernetesmy-nsweb-app-v244331844TLSinstanceHTTP10 | sha1sum     → 4e4f0879e0…
  // and 8 characters of the namespace and of the name, each without its non-alphanumerics.
  const TLS_TARGETS = {
    [`${P}ssl-cert`]: "arn:aws:acm:eu-west-1:111122223333:certificate/abc",
    [`${P}backend-protocol`]: "ssl",
    [`${P}healthcheck-protocol`]: "http",
    [`${P}healthcheck-interval`]: "10",
  };
  test.each([
    {
      cluster: "c1",
      ns: "networking",
      name: "resolver-frontend",
      port: 53,
      nodePort: 30053,
      annotations: {},
      want: "k8s-networki-resolver-a8ec9c6886",
    },
    {
      cluster: "kubernetes",
      ns: "my-ns",
      name: "web-app-v2",
      port: 443,
      nodePort: 31844,
      annotations: TLS_TARGETS,
      want: "k8s-myns-webappv2-4e4f0879e0",
    },
  ])("target group name as upstream's: $cluster $ns/$name $port→$nodePort", (c) => {
    const svc = service({ ports: [{ port: c.port, nodePort: c.nodePort }] }, c.annotations);
    const named: Service = { ...svc, metadata: { ...svc.metadata, namespace: c.ns, name: c.name } };
    expect(desiredTargetGroups(c.cluster, named, parseLbOptions(named)).map((g) => g.name)).toEqual([c.want]);
  });

  test("target group names: stable, changed by the service port, the NodePort and the cluster", () => {
    const hc = nlbHealthCheck(service(), parseLbOptions(service()));
    const port = { servicePort: 53, nodePort: 30053, protocol: "TCP" };
    const name = targetGroupName("c1", service(), port, hc);
    expect(targetGroupName("c1", service(), port, hc)).toBe(name);
    expect(targetGroupName("c1", service(), { ...port, servicePort: 54 }, hc)).not.toBe(name);
    expect(targetGroupName("c1", service(), { ...port, nodePort: 30054 }, hc)).not.toBe(name);
    expect(targetGroupName("c2", service(), port, hc)).not.toBe(name);
  });

  test.each([
    [{}, {}, { protocol: "TCP", port: "traffic-port", interval: 30, healthy: 3, unhealthy: 3 }],
    [
      { externalTrafficPolicy: "Local" as const, healthCheckNodePort: 32000 },
      {},
      { protocol: "HTTP", port: "32000", path: "/healthz", interval: 10, healthy: 2, unhealthy: 2 },
    ],
    [
      {},
      {
        [`${P}healthcheck-protocol`]: "HTTP",
        [`${P}healthcheck-port`]: "8080",
        [`${P}healthcheck-healthy-threshold`]: "5",
      },
      { protocol: "HTTP", port: "8080", path: "/", interval: 30, healthy: 5, unhealthy: 3 },
    ],
  ])("health check for %p %p", (spec, annotations, expected) => {
    const svc = service(spec, annotations);
    expect(nlbHealthCheck(svc, parseLbOptions(svc))).toMatchObject(expected);
  });

  test("the shared probe mode: HTTP on kube-proxy's port and path, but for externalTrafficPolicy: Local", () => {
    const probe = { shared: true, port: 10256, path: "/healthz" };
    const cluster = service();
    expect(nlbHealthCheck(cluster, parseLbOptions(cluster), probe)).toMatchObject({
      protocol: "HTTP",
      port: "10256",
      path: "/healthz",
      interval: 30,
      healthy: 3,
      unhealthy: 3,
    });
    const local = service({ externalTrafficPolicy: "Local", healthCheckNodePort: 32000 });
    expect(nlbHealthCheck(local, parseLbOptions(local), probe)).toMatchObject({ protocol: "HTTP", port: "32000" });
    const annotated = service({}, { [`${P}healthcheck-protocol`]: "TCP", [`${P}healthcheck-port`]: "traffic-port" });
    expect(nlbHealthCheck(annotated, parseLbOptions(annotated), probe)).toMatchObject({
      protocol: "TCP",
      port: "traffic-port",
    });
  });

  test.each([
    [{ loadBalancerIP: "1.2.3.4" }, /loadBalancerIP/],
    [
      { ports: [{ port: 1, protocol: "SCTP" as const, nodePort: 30001 }] },
      /SCTP: network load balancers support TCP and UDP/,
    ],
    [
      {
        ports: [
          { port: 1, nodePort: 30001 },
          { port: 2, protocol: "UDP" as const, nodePort: 30002 },
        ],
      },
      /mixed protocols/,
    ],
  ])("refuses %p", (spec, message) => {
    expect(() => validateNlbService(service(spec))).toThrow(message);
  });

  test("preserve_client_ip.enabled=false is refused on a UDP Service (upstream's check, AWS's rule), kept on TCP", () => {
    const attrs = { [`${P}target-group-attributes`]: "preserve_client_ip.enabled=false" };
    const udp = service({ ports: [{ port: 53, protocol: "UDP", nodePort: 30053 }] }, attrs);
    expect(() => desiredTargetGroups("c1", udp, parseLbOptions(udp))).toThrow(
      /target-group-attributes: invalid value "preserve_client_ip.enabled=false": client IP preservation cannot be disabled for UDP ports/,
    );
    const tcp = service({}, attrs);
    expect(desiredTargetGroups("c1", tcp, parseLbOptions(tcp))[0]!.attributes).toEqual({
      "preserve_client_ip.enabled": "false",
    });
  });

  test("node rules: client NodePorts from the source ranges, health from the subnets, ICMP MTU, each marked", () => {
    const svc = service({
      ports: [
        { port: 53, nodePort: 30053 },
        { port: 54, nodePort: 30054 },
      ],
    });
    const groups = desiredTargetGroups("c1", svc, parseLbOptions(svc));
    expect(nlbNodeRules("lb1", groups, ["10.0.0.0/8"], ["10.1.0.0/24"]).map(ruleKey)).toEqual([
      "tcp|30053|30053|10.0.0.0/8|kubernetes.io/rule/nlb/client=lb1",
      "tcp|30054|30054|10.0.0.0/8|kubernetes.io/rule/nlb/client=lb1",
      "icmp|3|4|10.0.0.0/8|kubernetes.io/rule/nlb/mtu",
      "tcp|30053|30053|10.1.0.0/24|kubernetes.io/rule/nlb/health=lb1",
      "tcp|30054|30054|10.1.0.0/24|kubernetes.io/rule/nlb/health=lb1",
    ]);
  });

  test("managed group rules: listener ports from every source range, ICMP fragmentation-needed from the IPv4 ones", () => {
    const svc = service({
      ports: [
        { port: 53, nodePort: 30053, protocol: "UDP" },
        { port: 443, nodePort: 30443 },
      ],
    });
    const groups = desiredTargetGroups("c1", svc, parseLbOptions(svc));
    expect(nlbFrontendRules(groups, ["10.0.0.0/8", "2001:db8::/32"]).map(ruleKey)).toEqual([
      "udp|53|53|10.0.0.0/8",
      "tcp|443|443|10.0.0.0/8",
      "icmp|3|4|10.0.0.0/8",
      "udp|53|53|2001:db8::/32",
      "tcp|443|443|2001:db8::/32",
    ]);
  });
});
