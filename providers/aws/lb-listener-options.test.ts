import { describe, expect, test } from "bun:test";
import type { ServiceWarning } from "../../src/cloud/provider.ts";
import type { Service } from "../../src/kube/objects.ts";
import { planPolicies, PROXY_PROTOCOL_POLICY, sslPolicyName } from "./elb/policies.ts";
import { readListenerOptions, unmatchedSslPorts, usesTls, type ListenerOptions } from "./lb-listener-options.ts";
import { desiredListeners } from "./elb/plan.ts";

const ACM = "arn:aws:acm:us-west-2:123456789012:certificate/0f1e2d3c-4b5a-6978-8695-a4b3c2d1e0f9";
const IAM = "arn:aws:iam::123456789012:server-certificate/shop";

function options(
  annotations: Record<string, string>,
  nlb = false,
): { options: ListenerOptions; warnings: ServiceWarning[] } {
  const warnings: ServiceWarning[] = [];
  return { options: readListenerOptions((n) => annotations[n], nlb, warnings), warnings };
}

const svc: Service = {
  metadata: { name: "web", namespace: "shop" },
  spec: {
    ports: [
      { name: "http", port: 80, nodePort: 30080 },
      { name: "HTTPS", port: 443, nodePort: 30443 },
      { name: "admin", port: 8443, nodePort: 30843 },
    ],
  },
};

const shape = (a: Record<string, string>): string[] =>
  desiredListeners(svc, options(a).options).map(
    (l) =>
      `${l.Protocol}:${l.LoadBalancerPort}->${l.InstanceProtocol}:${l.InstancePort}${l.SSLCertificateId ? " cert" : ""}`,
  );

describe("listener annotations", () => {
  test.each([
    ["no annotations: TCP everywhere", {}, ["TCP:80->TCP:30080", "TCP:443->TCP:30443", "TCP:8443->TCP:30843"]],
    [
      "backend http without a certificate: HTTP everywhere",
      { "backend-protocol": "http" },
      ["HTTP:80->HTTP:30080", "HTTP:443->HTTP:30443", "HTTP:8443->HTTP:30843"],
    ],
    [
      "backend https without a certificate stays TCP (upstream)",
      { "backend-protocol": "https" },
      ["TCP:80->TCP:30080", "TCP:443->TCP:30443", "TCP:8443->TCP:30843"],
    ],
    [
      "certificate, every port: SSL → TCP",
      { "ssl-cert": ACM },
      ["SSL:80->TCP:30080 cert", "SSL:443->TCP:30443 cert", "SSL:8443->TCP:30843 cert"],
    ],
    [
      "certificate on 443 and the port named https (any case)",
      { "ssl-cert": ACM, "ssl-ports": "443, https" },
      ["TCP:80->TCP:30080", "SSL:443->TCP:30443 cert", "TCP:8443->TCP:30843"],
    ],
    [
      "ssl-ports by name only",
      { "ssl-cert": IAM, "ssl-ports": "admin" },
      ["TCP:80->TCP:30080", "TCP:443->TCP:30443", "SSL:8443->TCP:30843 cert"],
    ],
    [
      "ssl-ports *",
      { "ssl-cert": ACM, "ssl-ports": "*" },
      ["SSL:80->TCP:30080 cert", "SSL:443->TCP:30443 cert", "SSL:8443->TCP:30843 cert"],
    ],
    [
      "backend http with TLS on 443: HTTPS → HTTP there, HTTP elsewhere",
      { "ssl-cert": ACM, "ssl-ports": "443", "backend-protocol": "http" },
      ["HTTP:80->HTTP:30080", "HTTPS:443->HTTP:30443 cert", "HTTP:8443->HTTP:30843"],
    ],
    [
      "backend https with TLS: HTTPS → HTTPS",
      { "ssl-cert": ACM, "ssl-ports": "443", "backend-protocol": "https" },
      ["TCP:80->TCP:30080", "HTTPS:443->HTTPS:30443 cert", "TCP:8443->TCP:30843"],
    ],
    [
      "backend ssl with TLS: SSL → SSL",
      { "ssl-cert": ACM, "ssl-ports": "443", "backend-protocol": "ssl" },
      ["TCP:80->TCP:30080", "SSL:443->SSL:30443 cert", "TCP:8443->TCP:30843"],
    ],
    [
      "backend tcp with TLS: SSL → TCP",
      { "ssl-cert": ACM, "ssl-ports": "443", "backend-protocol": "tcp" },
      ["TCP:80->TCP:30080", "SSL:443->TCP:30443 cert", "TCP:8443->TCP:30843"],
    ],
  ] as [string, Record<string, string>, string[]][])("%s", (_title, annotations, expected) => {
    expect(shape(annotations)).toEqual(expected);
  });

  test.each([
    ["ssl-cert", "arn:aws:acm:us-west-2:123:certificate/x", /ACM certificate ARN/],
    ["ssl-ports", "70000", /port 70000 is not from 1 to 65535/],
    ["ssl-negotiation-policy", "TLS13", /predefined security policy/],
    ["backend-protocol", "HTTP2", /expected http, https, ssl or tcp/],
    ["proxy-protocol", "v2", /only supported value is "\*"/],
  ])("%s=%p is refused", (name, value, message) => {
    expect(() => options({ "ssl-cert": ACM, [name]: value })).toThrow(message);
  });

  test("ssl-ports and a policy without a certificate are ignored, with warnings", () => {
    const { options: o, warnings } = options({
      "ssl-ports": "443",
      "ssl-negotiation-policy": "ELBSecurityPolicy-2016-08",
    });
    expect(o.tls).toBeUndefined();
    expect(warnings.map((w) => w.message.replace(/ without .*/, ""))).toEqual([
      "annotation service.beta.kubernetes.io/aws-load-balancer-ssl-ports has no effect",
      "annotation service.beta.kubernetes.io/aws-load-balancer-ssl-negotiation-policy has no effect",
    ]);
  });

  test("NLB: alpn-policy needs TLS; http backends warn", () => {
    expect(options({ "ssl-cert": ACM, "alpn-policy": "HTTP2Preferred" }, true).options.alpnPolicy).toBe(
      "HTTP2Preferred",
    );
    expect(() => options({ "ssl-cert": ACM, "alpn-policy": "h2" }, true)).toThrow(/expected one of HTTP1Only/);
    expect(options({ "alpn-policy": "None" }, true).warnings).toHaveLength(1);
    expect(options({ "backend-protocol": "http" }, true).warnings[0]!.message).toContain(
      "no effect on a network load balancer",
    );
  });

  test("ssl-ports entries naming no Service port warn", () => {
    const tls = { certificate: ACM, ports: { numbers: [443, 444], names: ["https", "htps"] } };
    expect(unmatchedSslPorts(tls, [{ port: 443, name: "HTTPS" }])).toEqual([
      {
        reason: "InvalidAnnotation",
        message:
          "annotation service.beta.kubernetes.io/aws-load-balancer-ssl-ports: 444, htps match no port of the Service; ignored",
      },
    ]);
    expect(unmatchedSslPorts({ certificate: ACM }, [])).toEqual([]);
  });

  test("usesTls: numbers and lower-cased names", () => {
    const tls = { certificate: ACM, ports: { numbers: [443], names: ["https"] } };
    expect([
      usesTls(tls, { port: 443 }),
      usesTls(tls, { port: 8443, name: "HTTPS" }),
      usesTls(tls, { port: 80, name: "http" }),
      usesTls(undefined, { port: 443 }),
    ]).toEqual([true, true, false, false]);
  });
});

describe("classic ELB policy plan", () => {
  const tlsListener = (policies: string[] = []) => ({
    Listener: { Protocol: "SSL", LoadBalancerPort: 443, InstanceProtocol: "TCP", InstancePort: 30443 },
    PolicyNames: policies,
  });
  const tcpListener = {
    Listener: { Protocol: "TCP", LoadBalancerPort: 80, InstanceProtocol: "TCP", InstancePort: 30080 },
    PolicyNames: [],
  };
  const desired = [tcpListener.Listener, tlsListener().Listener];
  const policy = "ELBSecurityPolicy-TLS-1-2-2017-01";

  test("fresh ELB with a negotiation policy and proxy protocol: define both, set on TLS listeners and every backend", () => {
    const plan = planPolicies({ defined: [], listeners: [tcpListener, tlsListener()], backends: [] }, desired, {
      tls: { certificate: ACM, policy },
      proxyProtocol: true,
    });
    expect(plan.create.map((p) => p.name)).toEqual([sslPolicyName(policy), PROXY_PROTOCOL_POLICY]);
    expect([...plan.listeners]).toEqual([[443, [sslPolicyName(policy)]]]);
    expect([...plan.backends]).toEqual([
      [30080, [PROXY_PROTOCOL_POLICY]],
      [30443, [PROXY_PROTOCOL_POLICY]],
    ]);
  });

  test("in step: nothing to do", () => {
    const state = {
      defined: [sslPolicyName(policy), PROXY_PROTOCOL_POLICY],
      listeners: [tcpListener, tlsListener([sslPolicyName(policy)])],
      backends: [30080, 30443].map((InstancePort) => ({ InstancePort, PolicyNames: [PROXY_PROTOCOL_POLICY] })),
    };
    const plan = planPolicies(state, desired, { tls: { certificate: ACM, policy }, proxyProtocol: true });
    expect([plan.create.length, plan.listeners.size, plan.backends.size]).toEqual([0, 0, 0]);
  });

  test("annotations removed: our policies come off, others stay", () => {
    const state = {
      defined: [sslPolicyName(policy), PROXY_PROTOCOL_POLICY],
      listeners: [tlsListener([sslPolicyName(policy), "custom"])],
      backends: [{ InstancePort: 30443, PolicyNames: [PROXY_PROTOCOL_POLICY, "mine"] }],
    };
    const plan = planPolicies(state, desired, { tls: { certificate: ACM }, proxyProtocol: false });
    expect([...plan.listeners]).toEqual([[443, ["custom"]]]);
    expect([...plan.backends]).toEqual([[30443, ["mine"]]]);
  });
});
