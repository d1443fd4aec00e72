/** NLB TLS listeners (ACM certificate from moto), target protocols and target group attributes against moto. */
import { beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import * as elbv2 from "@aws-sdk/client-elastic-load-balancing-v2";
import type { LoadBalancer } from "../../../src/cloud/provider.ts";
import type { Node, Service } from "../../../src/kube/objects.ts";
import { requestFor, requestsOf, tlsBed } from "../../../test/harness/aws-acm.ts";
import { awsTestProvider, type AwsTestCloud } from "../../../test/harness/aws-cloud.ts";
import { faultProxy } from "../../../test/harness/aws-faults.ts";
import { rejection } from "../../../test/harness/rejection.ts";

setDefaultTimeout(180_000);

const P = "service.beta.kubernetes.io/aws-load-balancer-";
const UID = "8b1e2d3c-4b5a-6978-8695-a4b3c2d1e0f9";
const NAME = "a8b1e2d3c4b5a69788695a4b3c2d1e0f";
const POLICY = "ELBSecurityPolicy-TLS13-1-2-2021-06";

let cloud: AwsTestCloud;
let lb: LoadBalancer;
let nodes: Node[];
let cert: string;

beforeEach(async () => {
  ({ cloud, lb, nodes, cert } = await tlsBed("dns.example.com"));
});

function service(annotations: Record<string, string> = {}): Service {
  return {
    metadata: { name: "dns", namespace: "infra", uid: UID, annotations: { [`${P}type`]: "nlb", ...annotations } },
    spec: {
      type: "LoadBalancer",
      ports: [
        { name: "dns", port: 53, nodePort: 30053 },
        { name: "dot", port: 853, nodePort: 30853 },
      ],
    },
  };
}

async function nlbArn(): Promise<string> {
  return (await cloud.elbv2.send(new elbv2.DescribeLoadBalancersCommand({ Names: [NAME] }))).LoadBalancers![0]!
    .LoadBalancerArn!;
}

interface Seen {
  readonly listeners: string[];
  readonly listenerArns: string[];
  readonly attributes: Record<number, Record<string, string>>;
}

async function seen(): Promise<Seen> {
  const groups = new Map(
    ((await cloud.elbv2.send(new elbv2.DescribeTargetGroupsCommand({}))).TargetGroups ?? []).map((g) => [
      g.TargetGroupArn,
      g,
    ]),
  );
  const list = (
    (await cloud.elbv2.send(new elbv2.DescribeListenersCommand({ LoadBalancerArn: await nlbArn() }))).Listeners ?? []
  ).sort((a, b) => a.Port! - b.Port!);
  const attributes: Record<number, Record<string, string>> = {};
  for (const g of groups.values()) {
    const a =
      (await cloud.elbv2.send(new elbv2.DescribeTargetGroupAttributesCommand({ TargetGroupArn: g.TargetGroupArn })))
        .Attributes ?? [];
    attributes[g.Port!] = Object.fromEntries(a.map((x) => [x.Key!, x.Value!]));
  }
  const describe = (l: elbv2.Listener): string => {
    const g = groups.get(l.DefaultActions?.[0]?.TargetGroupArn);
    const tls =
      l.Protocol === "TLS"
        ? ` ${l.Certificates?.[0]?.CertificateArn === cert ? "cert" : "?"} ${l.SslPolicy} ${(l.AlpnPolicy ?? []).join(",")}`
        : "";
    return `${l.Protocol}:${l.Port}->${g?.Protocol}:${g?.Port}${tls}`;
  };
  return { listeners: list.map(describe), listenerArns: list.map((l) => l.ListenerArn!), attributes };
}

describe("aws network load balancer TLS and target groups (moto)", () => {
  test("TLS on the ssl-ports with the ACM certificate, policy and ALPN; ssl backends; attributes and proxy protocol v2", async () => {
    const ensured = await lb.ensureLoadBalancer(
      "kubernetes",
      service({
        [`${P}ssl-cert`]: cert,
        [`${P}ssl-ports`]: "dot",
        [`${P}ssl-negotiation-policy`]: POLICY,
        [`${P}alpn-policy`]: "HTTP2Preferred",
        [`${P}backend-protocol`]: "ssl",
        [`${P}proxy-protocol`]: "*",
        [`${P}target-group-attributes`]: "deregistration_delay.timeout_seconds=30,preserve_client_ip.enabled=false",
      }),
      nodes,
    );
    expect(ensured.warnings).toEqual([]);
    const s = await seen();
    expect(s.listeners).toEqual(["TCP:53->TCP:30053", `TLS:853->TLS:30853 cert ${POLICY} HTTP2Preferred`]);
    for (const port of [30053, 30853]) {
      expect(s.attributes[port]).toMatchObject({
        "deregistration_delay.timeout_seconds": "30",
        "preserve_client_ip.enabled": "false",
        "proxy_protocol_v2.enabled": "true",
      });
    }
  });

  test("removing TLS and attributes changes listeners and attributes in place: same NLB, same listeners", async () => {
    await lb.ensureLoadBalancer(
      "kubernetes",
      service({ [`${P}ssl-cert`]: cert, [`${P}target-group-attributes`]: "deregistration_delay.timeout_seconds=10" }),
      nodes,
    );
    const arn = await nlbArn();
    const tls = await seen();
    expect(tls.listeners.map((l) => l.split(" ")[0])).toEqual(["TLS:53->TCP:30053", "TLS:853->TCP:30853"]);
    expect(tls.attributes[30053]?.["deregistration_delay.timeout_seconds"]).toBe("10");
    await lb.ensureLoadBalancer("kubernetes", service(), nodes);
    const plain = await seen();
    expect(await nlbArn()).toBe(arn);
    expect(plain.listenerArns).toEqual(tls.listenerArns);
    expect(plain.listeners).toEqual(["TCP:53->TCP:30053", "TCP:853->TCP:30853"]);
    expect(plain.attributes[30053]?.["deregistration_delay.timeout_seconds"]).toBe("300");
  });

  test("request sent (moto's ModifyListener refuses TLS): adding TLS modifies the existing listener, nothing else moves", async () => {
    await lb.ensureLoadBalancer("kubernetes", service(), nodes);
    const before = await seen();
    const annotations = { [`${P}ssl-cert`]: cert, [`${P}ssl-ports`]: "853", [`${P}ssl-negotiation-policy`]: POLICY };
    const bodies = await requestsOf(cloud, async (viaProxy) => {
      const failure = await rejection(viaProxy.ensureLoadBalancer("kubernetes", service(annotations), nodes));
      expect(failure.message).toContain("Protocol TLS is not supported");
    });
    const modify = requestFor(bodies, "ModifyListener");
    expect([
      modify.get("ListenerArn"),
      modify.get("Protocol"),
      modify.get("Certificates.member.1.CertificateArn"),
      modify.get("SslPolicy"),
    ]).toEqual([before.listenerArns[1]!, "TLS", cert, POLICY]);
    expect(bodies.filter((b) => /Action=(Create|Delete)(Listener|LoadBalancer|TargetGroup)&/.test(b))).toEqual([]);
    expect(await seen()).toEqual(before);
  });

  test("CreateListener failing (throttled until retries run out) leaves no target group behind; deletion then leaves nothing", async () => {
    const proxy = faultProxy(cloud.endpoint, (_n, body) =>
      body.includes("Action=CreateListener&") ? "throttle" : "pass",
    );
    try {
      const viaProxy = awsTestProvider(cloud, {
        endpoint: proxy.endpoint,
        options: { cacheMaxAgeMs: 0, api: { maxAttempts: 2, backoffMs: 1 } },
      }).loadBalancer!;
      await rejection(viaProxy.ensureLoadBalancer("kubernetes", service({ [`${P}ssl-cert`]: cert }), nodes));
      expect((await cloud.elbv2.send(new elbv2.DescribeTargetGroupsCommand({}))).TargetGroups ?? []).toEqual([]);
      await viaProxy.ensureLoadBalancerDeleted("kubernetes", service());
    } finally {
      await proxy.stop();
    }
    expect((await cloud.elbv2.send(new elbv2.DescribeLoadBalancersCommand({}))).LoadBalancers ?? []).toEqual([]);
  });

  test.each([
    ["target-group-attributes", "stickiness.enabled=maybe", /stickiness.enabled must be true or false/],
    ["target-group-attributes", "slow_start.duration_seconds=30", /unknown key slow_start.duration_seconds/],
    ["alpn-policy", "h2", /expected one of HTTP1Only/],
  ])("a bad %s value (%s) is refused before any change", async (name, value, why) => {
    await lb.ensureLoadBalancer("kubernetes", service(), nodes);
    const before = await seen();
    const failure = await rejection(
      lb.ensureLoadBalancer("kubernetes", service({ [`${P}ssl-cert`]: cert, [`${P}${name}`]: value }), nodes),
    );
    expect(failure.message).toContain(`annotation ${P}${name}: invalid value`);
    expect(failure.message).toMatch(why);
    expect(await seen()).toEqual(before);
  });
});
