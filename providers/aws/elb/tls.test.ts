/**
 * Classic ELB listeners against moto: TLS with an ACM certificate, backend protocols, negotiation and proxy policies.
 */
import { beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import * as elb from "@aws-sdk/client-elastic-load-balancing";
import type { LoadBalancer } from "../../../src/cloud/provider.ts";
import type { Node, Service } from "../../../src/kube/objects.ts";
import { requestFor, requestsOf, tlsBed } from "../../../test/harness/aws-acm.ts";
import { awsTestProvider, type AwsTestCloud } from "../../../test/harness/aws-cloud.ts";
import { faultProxy } from "../../../test/harness/aws-faults.ts";
import { rejection } from "../../../test/harness/rejection.ts";

setDefaultTimeout(180_000);

const P = "service.beta.kubernetes.io/aws-load-balancer-";
const UID = "7a1e2d3c-4b5a-6978-8695-a4b3c2d1e0f9";
const NAME = "a7a1e2d3c4b5a69788695a4b3c2d1e0f";
const POLICY = "ELBSecurityPolicy-TLS-1-2-2017-01";

let cloud: AwsTestCloud;
let lb: LoadBalancer;
let nodes: Node[];
let cert: string;

beforeEach(async () => {
  ({ cloud, lb, nodes, cert } = await tlsBed("shop.example.com"));
});

function service(annotations: Record<string, string> = {}): Service {
  return {
    metadata: { name: "web", namespace: "shop", uid: UID, annotations },
    spec: {
      type: "LoadBalancer",
      ports: [
        { name: "http", port: 80, nodePort: 30080 },
        { name: "https", port: 443, nodePort: 30443 },
      ],
    },
  };
}

async function describe_(): Promise<elb.LoadBalancerDescription> {
  return (await cloud.elb.send(new elb.DescribeLoadBalancersCommand({ LoadBalancerNames: [NAME] })))
    .LoadBalancerDescriptions![0]!;
}

/** Without InstanceProtocol: moto answers the listener's own protocol there (see the request test below). */
const listeners = (d: elb.LoadBalancerDescription): string[] =>
  (d.ListenerDescriptions ?? [])
    .map(
      ({ Listener: l, PolicyNames }) =>
        `${l!.Protocol}:${l!.LoadBalancerPort}->${l!.InstancePort} ${l!.SSLCertificateId ?? "-"} [${(PolicyNames ?? []).join(",")}]`,
    )
    .sort();

const backendPolicies = (d: elb.LoadBalancerDescription): string[] =>
  (d.BackendServerDescriptions ?? [])
    .filter((b) => (b.PolicyNames ?? []).length > 0)
    .map((b) => `${b.InstancePort}:${b.PolicyNames!.join(",")}`)
    .sort();

describe("aws classic ELB listeners (moto)", () => {
  test("TLS on the ssl-ports with the ACM certificate, HTTP backends, the negotiation policy and proxy protocol", async () => {
    const annotations = {
      [`${P}ssl-cert`]: cert,
      [`${P}ssl-ports`]: "https",
      [`${P}backend-protocol`]: "http",
      [`${P}ssl-negotiation-policy`]: POLICY,
      [`${P}proxy-protocol`]: "*",
    };
    const ensured = await lb.ensureLoadBalancer("kubernetes", service(annotations), nodes);
    expect(ensured.warnings).toEqual([]);
    const d = await describe_();
    expect(listeners(d)).toEqual([
      `HTTP:80->30080 - []`,
      `HTTPS:443->30443 ${cert} [k8s-SSLNegotiationPolicy-${POLICY}]`,
    ]);
    expect(backendPolicies(d)).toEqual(["30080:k8s-proxyprotocol-enabled", "30443:k8s-proxyprotocol-enabled"]);
    const policies = await cloud.elb.send(new elb.DescribeLoadBalancerPoliciesCommand({ LoadBalancerName: NAME }));
    const byName = new Map(
      (policies.PolicyDescriptions ?? []).map((p) => [p.PolicyName, [p.PolicyTypeName, p.PolicyAttributeDescriptions]]),
    );
    expect(byName.get(`k8s-SSLNegotiationPolicy-${POLICY}`)).toEqual([
      "SSLNegotiationPolicyType",
      [{ AttributeName: "Reference-Security-Policy", AttributeValue: POLICY }],
    ]);
    expect(byName.get("k8s-proxyprotocol-enabled")).toEqual([
      "ProxyProtocolPolicyType",
      [{ AttributeName: "ProxyProtocol", AttributeValue: "true" }],
    ]);
  });

  test("adding and removing TLS and proxy protocol changes the listeners in place: same ELB, same DNS name", async () => {
    const plain = await lb.ensureLoadBalancer("kubernetes", service(), nodes);
    const tls = service({ [`${P}ssl-cert`]: cert, [`${P}ssl-ports`]: "443", [`${P}proxy-protocol`]: "*" });
    expect((await lb.ensureLoadBalancer("kubernetes", tls, nodes)).status).toEqual(plain.status);
    const d = await describe_();
    expect(listeners(d)).toEqual([`SSL:443->30443 ${cert} []`, "TCP:80->30080 - []"]);
    expect(backendPolicies(d)).toEqual(["30080:k8s-proxyprotocol-enabled", "30443:k8s-proxyprotocol-enabled"]);
    const withPolicy = service({ ...tls.metadata.annotations, [`${P}ssl-negotiation-policy`]: POLICY });
    await lb.ensureLoadBalancer("kubernetes", withPolicy, nodes);
    expect(listeners(await describe_())).toContain(`SSL:443->30443 ${cert} [k8s-SSLNegotiationPolicy-${POLICY}]`);
    expect((await lb.ensureLoadBalancer("kubernetes", service(), nodes)).status).toEqual(plain.status);
    const back = await describe_();
    expect(listeners(back)).toEqual(["TCP:443->30443 - []", "TCP:80->30080 - []"]);
    expect(backendPolicies(back)).toEqual([]);
    expect(back.CreatedTime).toEqual(d.CreatedTime);
  });

  test("request sent (moto echoes the listener protocol as InstanceProtocol): HTTPS listener to an HTTPS backend", async () => {
    const annotations = { [`${P}ssl-cert`]: cert, [`${P}ssl-ports`]: "443", [`${P}backend-protocol`]: "https" };
    const bodies = await requestsOf(cloud, async (viaProxy) => {
      await viaProxy.ensureLoadBalancer("kubernetes", service(annotations), nodes);
    });
    const create = requestFor(bodies, "CreateLoadBalancer");
    const sent = [1, 2].map((i) =>
      ["Protocol", "LoadBalancerPort", "InstanceProtocol", "InstancePort", "SSLCertificateId"].map((k) =>
        create.get(`Listeners.member.${i}.${k}`),
      ),
    );
    expect(sent).toEqual([
      ["TCP", "80", "TCP", "30080", null],
      ["HTTPS", "443", "HTTPS", "30443", cert],
    ]);
  });

  test("a certificate ACM does not know fails the update and leaves the listeners as they were", async () => {
    await lb.ensureLoadBalancer("kubernetes", service({ [`${P}ssl-cert`]: cert }), nodes);
    const before = listeners(await describe_());
    const missing = cert.replace(/certificate\/.*/, "certificate/00000000-0000-0000-0000-000000000000");
    expect(
      (await rejection(lb.ensureLoadBalancer("kubernetes", service({ [`${P}ssl-cert`]: missing }), nodes))).message,
    ).toMatch(/Certificate/i);
    expect(listeners(await describe_())).toEqual(before);
  });

  test("a throttled listener change (retries spent) puts the deleted listener back", async () => {
    await lb.ensureLoadBalancer("kubernetes", service(), nodes);
    const before = listeners(await describe_());
    let creates = 0;
    const proxy = faultProxy(cloud.endpoint, (_n, body) =>
      body.includes("Action=CreateLoadBalancerListeners&") && creates++ < 2 ? "throttle" : "pass",
    );
    try {
      const viaProxy = awsTestProvider(cloud, {
        endpoint: proxy.endpoint,
        options: { cacheMaxAgeMs: 0, api: { maxAttempts: 2, backoffMs: 1 } },
      }).loadBalancer!;
      await rejection(
        viaProxy.ensureLoadBalancer("kubernetes", service({ [`${P}ssl-cert`]: cert, [`${P}ssl-ports`]: "443" }), nodes),
      );
    } finally {
      await proxy.stop();
    }
    expect(creates).toBe(3);
    expect(listeners(await describe_())).toEqual(before);
  });

  test.each([
    ["proxy-protocol", "true", /only supported value is "\*"/],
    ["backend-protocol", "grpc", /expected http, https, ssl or tcp/],
    ["ssl-cert", "my-cert", /ACM certificate ARN/],
    ["ssl-negotiation-policy", "modern", /predefined security policy/],
  ])("a bad %s value is refused before any change", async (name, value, why) => {
    await lb.ensureLoadBalancer("kubernetes", service(), nodes);
    const before = await describe_();
    const annotations = { [`${P}ssl-cert`]: cert, [`${P}${name}`]: value };
    const failure = await rejection(lb.ensureLoadBalancer("kubernetes", service(annotations), nodes));
    expect(failure.message).toContain(`annotation ${P}${name}: invalid value ${JSON.stringify(value)}`);
    expect(failure.message).toMatch(why);
    expect(listeners(await describe_())).toEqual(listeners(before));
  });
});
