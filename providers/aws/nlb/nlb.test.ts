/** Network load balancers (`aws-load-balancer-type: nlb`) against moto. */
import { beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import * as ec2 from "@aws-sdk/client-ec2";
import * as elbv2 from "@aws-sdk/client-elastic-load-balancing-v2";
import type { LoadBalancer } from "../../../src/cloud/provider.ts";
import type { Node, Service } from "../../../src/kube/objects.ts";
import {
  awsTestProvider,
  loadBalancerBed,
  type AwsTestCloud,
  type TestInstance,
} from "../../../test/harness/aws-cloud.ts";
import { faultProxy, type Fault } from "../../../test/harness/aws-faults.ts";
import { rejection } from "../../../test/harness/rejection.ts";
import { targetGroupPrefix } from "./plan.ts";
import { earlierPrefix } from "./stray-groups.ts";

// The first test of a run may install moto into the cache and start it; hooks default to 5 s.
setDefaultTimeout(180_000);

const P = "service.beta.kubernetes.io/aws-load-balancer-";
const UID = "7a1e2d3c-4b5a-6978-8695-a4b3c2d1e0f9";
const NAME = "a7a1e2d3c4b5a69788695a4b3c2d1e0f";

let cloud: AwsTestCloud;
let lb: LoadBalancer;
let nodes: Node[];
let launched: TestInstance[];

beforeEach(async () => {
  ({ cloud, lb, launched, nodes } = await loadBalancerBed());
});

function service(annotations: Record<string, string> = {}, spec: Partial<NonNullable<Service["spec"]>> = {}): Service {
  return {
    metadata: { name: "dns", namespace: "infra", uid: UID, annotations: { [`${P}type`]: "nlb", ...annotations } },
    spec: {
      type: "LoadBalancer",
      ports: [
        { name: "a", port: 53, nodePort: 30053 },
        { name: "b", port: 853, nodePort: 30853 },
      ],
      ...spec,
    },
  };
}

/** `service()` named `name`; both `resolver-*` names give target groups named `k8s-infra-resolver-…`. */
function named(name: string, uid: string, ports = service().spec!.ports!): Service {
  return { ...service({}, { ports }), metadata: { ...service().metadata, name, uid } };
}

/** A target group made outside the provider: `name` on `port`, tagged for `clusterID` and `owner`. */
async function taggedGroup(g: {
  name: string;
  port: number;
  clusterID: string;
  owner: string;
}): Promise<elbv2.CreateTargetGroupCommandOutput> {
  return cloud.elbv2.send(
    new elbv2.CreateTargetGroupCommand({
      Name: g.name,
      Protocol: "TCP",
      Port: g.port,
      VpcId: cloud.vpcId,
      Tags: [
        { Key: `kubernetes.io/cluster/${g.clusterID}`, Value: "owned" },
        { Key: "kubernetes.io/service-name", Value: g.owner },
      ],
    }),
  );
}

/** A target group named as resolver-a's (port 31999), tagged as its, for `clusterID`. */
async function resolverGroup(clusterID: string): Promise<elbv2.CreateTargetGroupCommandOutput> {
  return taggedGroup({ name: "k8s-infra-resolver-0123456789", port: 31999, clusterID, owner: "infra/resolver-a" });
}

async function nlb(): Promise<elbv2.LoadBalancer> {
  return (await cloud.elbv2.send(new elbv2.DescribeLoadBalancersCommand({ Names: [NAME] }))).LoadBalancers![0]!;
}

async function listeners(arn: string): Promise<string[]> {
  const groups = new Map(
    ((await cloud.elbv2.send(new elbv2.DescribeTargetGroupsCommand({}))).TargetGroups ?? []).map((g) => [
      g.TargetGroupArn,
      g,
    ]),
  );
  const list = (await cloud.elbv2.send(new elbv2.DescribeListenersCommand({ LoadBalancerArn: arn }))).Listeners ?? [];
  return list.map((l) => `${l.Protocol}:${l.Port}->${groups.get(l.DefaultActions?.[0]?.TargetGroupArn)?.Port}`).sort();
}

async function targetGroups(): Promise<elbv2.TargetGroup[]> {
  return (await cloud.elbv2.send(new elbv2.DescribeTargetGroupsCommand({}))).TargetGroups ?? [];
}

async function targets(arn: string): Promise<string[]> {
  const health = await cloud.elbv2.send(new elbv2.DescribeTargetHealthCommand({ TargetGroupArn: arn }));
  return (health.TargetHealthDescriptions ?? [])
    .filter((d) => d.TargetHealth?.State !== "unused")
    .map((d) => `${d.Target!.Id}:${d.Target!.Port}`)
    .sort();
}

async function nodeRules(): Promise<string[]> {
  const group = (await cloud.ec2.send(new ec2.DescribeSecurityGroupsCommand({ GroupIds: [cloud.nodeSecurityGroup] })))
    .SecurityGroups![0]!;
  return (group.IpPermissions ?? [])
    .flatMap((p) => (p.IpRanges ?? []).map((r) => `${p.IpProtocol}:${p.FromPort}:${r.CidrIp}:${r.Description}`))
    .sort();
}

/** A provider whose requests matching `fails` (body, how many matched before) get ResourceInUse. */
async function viaFaults(
  fails: (body: string, matchedBefore: number) => boolean,
): Promise<{ provider: LoadBalancer; stop: () => Promise<void> }> {
  let matched = 0;
  return viaPlan((_n, body) => {
    if (!body.includes("Action=DeleteTargetGroup&")) return "pass";
    return fails(body, matched++) ? { code: "ResourceInUse", status: 400 } : "pass";
  });
}

/** A provider whose requests go through a fault proxy with `plan`. */
async function viaPlan(
  plan: (n: number, body: string) => Fault,
): Promise<{ provider: LoadBalancer; stop: () => Promise<void> }> {
  const proxy = faultProxy(cloud.endpoint, plan);
  const provider = awsTestProvider(cloud, {
    endpoint: proxy.endpoint,
    options: { cacheMaxAgeMs: 0, api: { maxAttempts: 1, backoffMs: 1 } },
  }).loadBalancer!;
  return { provider, stop: () => proxy.stop() };
}

describe("aws network load balancer (moto)", () => {
  test("ensure builds the NLB: target group and listener per port, targets, tags, node rules, hostname", async () => {
    const ensured = await lb.ensureLoadBalancer("kubernetes", service(), nodes);
    const d = await nlb();
    expect(ensured.status).toEqual({ ingress: [{ hostname: d.DNSName! }] });
    expect(d.Type).toBe("network");
    expect(d.Scheme).toBe("internet-facing");
    expect(d.AvailabilityZones!.map((z) => z.SubnetId).sort()).toEqual([...cloud.subnetIds].sort());
    expect(await listeners(d.LoadBalancerArn!)).toEqual(["TCP:53->30053", "TCP:853->30853"]);
    const groups = await targetGroups();
    expect(groups).toHaveLength(2);
    for (const g of groups) {
      expect(g).toMatchObject({
        Protocol: "TCP",
        TargetType: "instance",
        VpcId: cloud.vpcId,
        HealthCheckProtocol: "TCP",
        HealthCheckPort: "traffic-port",
        HealthCheckIntervalSeconds: 30,
        HealthyThresholdCount: 3,
        UnhealthyThresholdCount: 3,
      });
      expect(g.TargetGroupName).toMatch(/^k8s-infra-dns-[0-9a-f]{10}$/);
      expect(await targets(g.TargetGroupArn!)).toEqual(launched.map((i) => `${i.id}:${g.Port}`).sort());
    }
    const tags = (await cloud.elbv2.send(new elbv2.DescribeTagsCommand({ ResourceArns: [d.LoadBalancerArn!] })))
      .TagDescriptions![0]!.Tags;
    expect(tags).toContainEqual({ Key: "kubernetes.io/cluster/test-cluster", Value: "owned" });
    expect(tags).toContainEqual({ Key: "kubernetes.io/service-name", Value: "infra/dns" });
    // Listeners carry the NLB's tags, as upstream's createListenerV2.
    const arns = (
      (await cloud.elbv2.send(new elbv2.DescribeListenersCommand({ LoadBalancerArn: d.LoadBalancerArn! }))).Listeners ??
      []
    ).map((l) => l.ListenerArn!);
    const listenerTags = (await cloud.elbv2.send(new elbv2.DescribeTagsCommand({ ResourceArns: arns })))
      .TagDescriptions!;
    expect(listenerTags).toHaveLength(2);
    for (const t of listenerTags) for (const tag of tags!) expect(t.Tags).toContainEqual(tag);
    expect(await nodeRules()).toEqual(
      [
        `tcp:30053:0.0.0.0/0:kubernetes.io/rule/nlb/client=${NAME}`,
        `tcp:30853:0.0.0.0/0:kubernetes.io/rule/nlb/client=${NAME}`,
        "icmp:3:0.0.0.0/0:kubernetes.io/rule/nlb/mtu",
        `tcp:30053:10.0.1.0/24:kubernetes.io/rule/nlb/health=${NAME}`,
        `tcp:30853:10.0.1.0/24:kubernetes.io/rule/nlb/health=${NAME}`,
        `tcp:30053:10.0.2.0/24:kubernetes.io/rule/nlb/health=${NAME}`,
        `tcp:30853:10.0.2.0/24:kubernetes.io/rule/nlb/health=${NAME}`,
      ].sort(),
    );
    expect(await lb.getLoadBalancer("kubernetes", service())).toEqual({ exists: true, status: ensured.status });
  });

  test("node changes move targets even when the rest of the sync is refused (internal flipped); the refusal is reported", async () => {
    await lb.ensureLoadBalancer("kubernetes", service(), nodes);
    const flipped = service({ [`${P}internal`]: "true" });
    const failure = await rejection(lb.updateLoadBalancer("kubernetes", flipped, nodes.slice(1)));
    expect(failure.message).toMatch(/internal: cannot change NLB/);
    for (const g of await targetGroups())
      expect(await targets(g.TargetGroupArn!)).toEqual([`${launched[1]!.id}:${g.Port}`]);
    const bad = service({ [`${P}healthcheck-interval`]: "fast" });
    expect((await rejection(lb.updateLoadBalancer("kubernetes", bad, nodes))).message).toMatch(/healthcheck-interval/);
    for (const g of await targetGroups())
      expect(await targets(g.TargetGroupArn!)).toEqual(launched.map((i) => `${i.id}:${g.Port}`).sort());
  });

  test("ensuring again changes nothing; node changes move targets; a NodePort change gets a new target group", async () => {
    await lb.ensureLoadBalancer("kubernetes", service(), nodes);
    await lb.ensureLoadBalancer("kubernetes", service(), nodes);
    expect(await targetGroups()).toHaveLength(2);
    await lb.updateLoadBalancer("kubernetes", service(), nodes.slice(1));
    for (const g of await targetGroups())
      expect(await targets(g.TargetGroupArn!)).toEqual([`${launched[1]!.id}:${g.Port}`]);
    await lb.updateLoadBalancer("kubernetes", service(), nodes);
    for (const g of await targetGroups())
      expect(await targets(g.TargetGroupArn!)).toEqual(launched.map((i) => `${i.id}:${g.Port}`).sort());
    await lb.ensureLoadBalancer("kubernetes", service({}, { ports: [{ port: 53, nodePort: 31053 }] }), nodes);
    const d = await nlb();
    expect(await listeners(d.LoadBalancerArn!)).toEqual(["TCP:53->31053"]);
    expect((await targetGroups()).map((g) => g.Port)).toEqual([31053]);
    expect((await nodeRules()).filter((r) => r.includes("client="))).toEqual([
      `tcp:31053:0.0.0.0/0:kubernetes.io/rule/nlb/client=${NAME}`,
    ]);
  });

  test("annotations: internal, cross-zone, health-check tuning, source ranges; ELB-only ones are warnings", async () => {
    const ensured = await lb.ensureLoadBalancer(
      "kubernetes",
      service(
        {
          [`${P}internal`]: "true",
          [`${P}cross-zone-load-balancing-enabled`]: "true",
          [`${P}healthcheck-protocol`]: "HTTP",
          [`${P}healthcheck-path`]: "/ready",
          [`${P}healthcheck-interval`]: "10",
          [`${P}connection-idle-timeout`]: "120",
        },
        { loadBalancerSourceRanges: ["192.0.2.0/24"], ports: [{ port: 53, nodePort: 30053 }] },
      ),
      nodes,
    );
    const d = await nlb();
    expect(d.Scheme).toBe("internal");
    const attributes =
      (await cloud.elbv2.send(new elbv2.DescribeLoadBalancerAttributesCommand({ LoadBalancerArn: d.LoadBalancerArn })))
        .Attributes ?? [];
    expect(attributes).toContainEqual({ Key: "load_balancing.cross_zone.enabled", Value: "true" });
    expect((await targetGroups())[0]).toMatchObject({
      HealthCheckProtocol: "HTTP",
      HealthCheckPath: "/ready",
      HealthCheckIntervalSeconds: 10,
    });
    expect((await nodeRules()).filter((r) => r.includes("client="))).toEqual([
      `tcp:30053:192.0.2.0/24:kubernetes.io/rule/nlb/client=${NAME}`,
    ]);
    expect(ensured.warnings).toEqual([
      {
        reason: "UnsupportedAnnotation",
        message: `annotation ${P}connection-idle-timeout only applies to classic ELBs; ignored for this network load balancer`,
      },
    ]);
  });

  test("access-log annotations set the NLB's access_logs.s3.* attributes; turning logs off keeps the bucket", async () => {
    const attributes = async (): Promise<Record<string, string>> => {
      const arn = (await nlb()).LoadBalancerArn;
      const found = await cloud.elbv2.send(new elbv2.DescribeLoadBalancerAttributesCommand({ LoadBalancerArn: arn }));
      return Object.fromEntries((found.Attributes ?? []).map((a) => [a.Key ?? "", a.Value ?? ""]));
    };
    const logs = {
      [`${P}access-log-enabled`]: "true",
      [`${P}access-log-s3-bucket-name`]: "nlb-logs",
      [`${P}access-log-s3-bucket-prefix`]: "infra/dns",
    };
    const ensured = await lb.ensureLoadBalancer("kubernetes", service(logs), nodes);
    expect(ensured.warnings).toEqual([]);
    expect(await attributes()).toMatchObject({
      "access_logs.s3.enabled": "true",
      "access_logs.s3.bucket": "nlb-logs",
      "access_logs.s3.prefix": "infra/dns",
    });
    await lb.ensureLoadBalancer("kubernetes", service({ [`${P}access-log-s3-bucket-name`]: "nlb-logs" }), nodes);
    expect(await attributes()).toMatchObject({
      "access_logs.s3.enabled": "false",
      "access_logs.s3.bucket": "nlb-logs",
      "access_logs.s3.prefix": "infra/dns",
    });
  });

  test("the type cannot change on a live Service; fixed addresses that do not fit the subnets are refused", async () => {
    await lb.ensureLoadBalancer("kubernetes", service(), nodes);
    const classic = { ...service(), metadata: { ...service().metadata, annotations: {} } };
    expect((await rejection(lb.ensureLoadBalancer("kubernetes", classic, nodes))).message).toMatch(
      /aws-load-balancer-type: load balancer .* is a network load balancer; it cannot become a classic ELB/,
    );
    expect(
      (await rejection(lb.ensureLoadBalancer("kubernetes", service({ [`${P}eip-allocations`]: "eipalloc-1" }), nodes)))
        .message,
    ).toContain(`annotation ${P}eip-allocations: invalid value "eipalloc-1": 1 allocations for 2 subnets`);
    expect(
      (
        await rejection(
          lb.ensureLoadBalancer(
            "kubernetes",
            service(
              {},
              {
                ports: [
                  { port: 53, nodePort: 30053 },
                  { port: 54, protocol: "UDP", nodePort: 30054 },
                ],
              },
            ),
            nodes,
          ),
        )
      ).message,
    ).toMatch(/mixed protocols/);
  });

  test("manage-backend-security-group-rules: false takes this NLB's rules off the backends' groups; true puts them back", async () => {
    await lb.ensureLoadBalancer("kubernetes", service(), nodes);
    const managed = await nodeRules();
    expect(managed.length).toBeGreaterThan(0);
    await lb.ensureLoadBalancer("kubernetes", service({ [`${P}manage-backend-security-group-rules`]: "false" }), nodes);
    expect(await nodeRules()).toEqual([]);
    await lb.ensureLoadBalancer("kubernetes", service({ [`${P}manage-backend-security-group-rules`]: "true" }), nodes);
    expect(await nodeRules()).toEqual(managed);
    expect(
      (await rejection(lb.ensureLoadBalancer("kubernetes", service({ [`${P}healthcheck-protocol`]: "SSL" }), nodes)))
        .message,
    ).toMatch(
      /healthcheck-protocol: invalid value "SSL": network load balancer target groups check TCP, HTTP or HTTPS/,
    );
  });

  test("UDP ports get UDP target groups and listeners", async () => {
    await lb.ensureLoadBalancer(
      "kubernetes",
      service({}, { ports: [{ port: 53, protocol: "UDP", nodePort: 30053 }] }),
      nodes,
    );
    expect(await listeners((await nlb()).LoadBalancerArn!)).toEqual(["UDP:53->30053"]);
    expect((await targetGroups())[0]!.Protocol).toBe("UDP");
  });

  // moto answers DescribeTargetGroups(LoadBalancerArn) of an NLB without target groups with TargetGroupNotFound
  // (AWS: an empty list); deleting twice goes through that answer.
  test("delete removes the NLB, its target groups and its node rules; deleting again is fine", async () => {
    await lb.ensureLoadBalancer("kubernetes", service(), nodes);
    await lb.ensureLoadBalancerDeleted("kubernetes", service());
    expect((await rejection(cloud.elbv2.send(new elbv2.DescribeLoadBalancersCommand({ Names: [NAME] })))).name).toBe(
      "LoadBalancerNotFoundException",
    );
    expect(await targetGroups()).toEqual([]);
    expect(await nodeRules()).toEqual([]);
    await lb.ensureLoadBalancerDeleted("kubernetes", service());
    expect(await lb.getLoadBalancer("kubernetes", service())).toEqual({ exists: false, status: {} });
  });

  test("DeleteTargetGroup failing after the NLB went: the retried deletion still deletes the group", async () => {
    // Both names start `resolver`, so both Services' target groups are named `k8s-infra-resolver-…`: only
    // the tags tell them apart.
    const mine = named("resolver-a", UID);
    const other = named("resolver-b", `0${UID.slice(1)}`, [{ port: 53, nodePort: 31153 }]);
    await lb.ensureLoadBalancer("kubernetes", mine, nodes);
    await lb.ensureLoadBalancer("kubernetes", other, nodes);
    const foreign = await resolverGroup("another-cluster");
    expect(foreign.TargetGroups?.[0]?.TargetGroupName).toStartWith(targetGroupPrefix(mine));
    const failing = await viaFaults((body, n) => body.includes("Action=DeleteTargetGroup&") && n === 0);
    try {
      await rejection(failing.provider.ensureLoadBalancerDeleted("kubernetes", mine));
      expect(await rejection(nlb())).toBeDefined();
      expect(await targetGroups()).toHaveLength(4);
      await failing.provider.ensureLoadBalancerDeleted("kubernetes", mine);
    } finally {
      await failing.stop();
    }
    // The other Service's group, and the one tagged for another cluster, share the prefix and stay.
    expect((await targetGroups()).map((g) => g.Port).sort()).toEqual([31153, 31999]);
    await lb.ensureLoadBalancerDeleted("kubernetes", other);
    expect((await targetGroups()).map((g) => g.Port)).toEqual([31999]);
  });

  test("a stray group gone before DescribeTags (TargetGroupNotFound) is dropped; the rest are still deleted", async () => {
    const mine = named("resolver-a", UID);
    await lb.ensureLoadBalancer("kubernetes", mine, nodes);
    const going = await resolverGroup(cloud.clusterID);
    const arn = encodeURIComponent(going.TargetGroups![0]!.TargetGroupArn!);
    const failing = await viaFaults((_body, n) => n === 0);
    try {
      await rejection(failing.provider.ensureLoadBalancerDeleted("kubernetes", mine));
    } finally {
      await failing.stop();
    }
    expect(await targetGroups()).toHaveLength(3);
    // AWS answers so for the whole call when one of its ARNs was deleted since the listing.
    const gone = await viaPlan((_n, body) =>
      body.includes("Action=DescribeTags&") && body.includes(arn)
        ? { code: "TargetGroupNotFound", status: 400 }
        : "pass",
    );
    try {
      await gone.provider.ensureLoadBalancerDeleted("kubernetes", mine);
    } finally {
      await gone.stop();
    }
    expect((await targetGroups()).map((g) => g.Port)).toEqual([31999]);
  });

  // AWS refuses a name with "--", so earlier versions could make groups only where no dash was doubled.
  test("a stray group named as earlier versions named it (dashes kept) is found by its tags and deleted", async () => {
    const dashed = named("web-app", UID);
    const stray = (owner: string, suffix: string, port: number): Promise<unknown> =>
      taggedGroup({ name: `${earlierPrefix(dashed)}${suffix}`, port, clusterID: cloud.clusterID, owner });
    expect(earlierPrefix(dashed)).toBe("k8s-infra-web-app-");
    expect(targetGroupPrefix(dashed)).toBe("k8s-infra-webapp-");
    await stray("infra/web-app", "0123456789", 31001);
    await stray("infra/web-app-v1", "9876543210", 31002);
    await lb.ensureLoadBalancerDeleted("kubernetes", dashed);
    expect((await targetGroups()).map((g) => g.Port)).toEqual([31002]);
  });

  test("two NLBs share the MTU rule of their source range: both sync, and it goes with the last one", async () => {
    const other: Service = {
      ...service({}, { ports: [{ name: "a", port: 53, nodePort: 31153 }] }),
      metadata: {
        name: "dns2",
        namespace: "infra",
        uid: "0b1e2d3c-4b5a-6978-8695-a4b3c2d1e0f9",
        annotations: { [`${P}type`]: "nlb" },
      },
    };
    await lb.ensureLoadBalancer("kubernetes", service(), nodes);
    const second = await lb.ensureLoadBalancer("kubernetes", other, nodes);
    expect(second.status.ingress?.[0]?.hostname).toBeTruthy();
    const mtu = (rules: string[]): string[] => rules.filter((r) => r.startsWith("icmp:"));
    expect(mtu(await nodeRules())).toEqual(["icmp:3:0.0.0.0/0:kubernetes.io/rule/nlb/mtu"]);
    await lb.ensureLoadBalancerDeleted("kubernetes", service());
    expect(mtu(await nodeRules())).toEqual(["icmp:3:0.0.0.0/0:kubernetes.io/rule/nlb/mtu"]);
    await lb.ensureLoadBalancerDeleted("kubernetes", other);
    expect(await nodeRules()).toEqual([]);
  });

  test("a live NLB keeps its subnets when another is tagged later: fixed addresses still fit, health rules from its own", async () => {
    const eips = [];
    for (let i = 0; i < 2; i++)
      eips.push((await cloud.ec2.send(new ec2.AllocateAddressCommand({ Domain: "vpc" }))).AllocationId!);
    const annotated = service({ [`${P}eip-allocations`]: eips.join(",") });
    await lb.ensureLoadBalancer("kubernetes", annotated, nodes);
    // A third public subnet, tagged for load balancers, in a third zone.
    const table = (
      await cloud.ec2.send(
        new ec2.DescribeRouteTablesCommand({
          Filters: [{ Name: "association.subnet-id", Values: [cloud.subnetIds[0]!] }],
        }),
      )
    ).RouteTables![0]!.RouteTableId!;
    const third = (
      await cloud.ec2.send(
        new ec2.CreateSubnetCommand({ VpcId: cloud.vpcId, CidrBlock: "10.0.3.0/24", AvailabilityZone: "us-west-2c" }),
      )
    ).Subnet!.SubnetId!;
    await cloud.ec2.send(
      new ec2.CreateTagsCommand({
        Resources: [third],
        Tags: [
          { Key: "kubernetes.io/cluster/test-cluster", Value: "shared" },
          { Key: "kubernetes.io/role/elb", Value: "1" },
        ],
      }),
    );
    await cloud.ec2.send(new ec2.AssociateRouteTableCommand({ RouteTableId: table, SubnetId: third }));
    await lb.ensureLoadBalancer("kubernetes", annotated, nodes);
    await lb.updateLoadBalancer("kubernetes", annotated, nodes.slice(1));
    const health = (await nodeRules()).filter((r) => r.includes("/health="));
    expect(new Set(health.map((r) => r.split(":")[2]))).toEqual(new Set(["10.0.1.0/24", "10.0.2.0/24"]));
  });

  test("ClusterServiceLoadBalancerHealthProbeMode = Shared: the target groups check kube-proxy's port and path", async () => {
    const shared = awsTestProvider(cloud, {
      extra: "ClusterServiceLoadBalancerHealthProbeMode = Shared",
      options: { cacheMaxAgeMs: 0 },
    }).loadBalancer!;
    await shared.ensureLoadBalancer("kubernetes", service(), nodes);
    for (const g of await targetGroups())
      expect(g).toMatchObject({ HealthCheckProtocol: "HTTP", HealthCheckPort: "10256", HealthCheckPath: "/healthz" });
  });
});
