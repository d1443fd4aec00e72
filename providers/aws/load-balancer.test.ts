/** Classic ELBs against moto: what EnsureLoadBalancer builds, how it follows changes, and what deletion leaves. */
import { beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import * as ec2 from "@aws-sdk/client-ec2";
import * as elb from "@aws-sdk/client-elastic-load-balancing";
import { ImplementedElsewhereError, RetryError } from "../../src/cloud/errors.ts";
import type { LoadBalancer } from "../../src/cloud/provider.ts";
import type { Node, Service } from "../../src/kube/objects.ts";
import { faultProxy } from "../../test/harness/aws-faults.ts";
import { rejection } from "../../test/harness/rejection.ts";
import {
  awsTestProvider,
  loadBalancerBed,
  type AwsTestCloud,
  type TestInstance,
} from "../../test/harness/aws-cloud.ts";

// The first test of a run may install moto into the cache and start it; hooks default to 5 s.
setDefaultTimeout(180_000);

const P = "service.beta.kubernetes.io/aws-load-balancer-";
const UID = "6f1e2d3c-4b5a-6978-8695-a4b3c2d1e0f9";
const NAME = "a6f1e2d3c4b5a69788695a4b3c2d1e0f";

let cloud: AwsTestCloud;
let lb: LoadBalancer;
let nodes: Node[];
let launched: TestInstance[];

beforeEach(async () => {
  ({ cloud, lb, launched, nodes } = await loadBalancerBed());
});

function service(annotations: Record<string, string> = {}, spec: Partial<NonNullable<Service["spec"]>> = {}): Service {
  return {
    metadata: { name: "web", namespace: "shop", uid: UID, annotations },
    spec: {
      type: "LoadBalancer",
      ports: [
        { name: "http", port: 80, nodePort: 30080 },
        { name: "https", port: 443, nodePort: 30443 },
      ],
      ...spec,
    },
  };
}

async function describeElb(): Promise<elb.LoadBalancerDescription> {
  return (await cloud.elb.send(new elb.DescribeLoadBalancersCommand({ LoadBalancerNames: [NAME] })))
    .LoadBalancerDescriptions![0]!;
}

async function groupsNamed(name: string): Promise<ec2.SecurityGroup[]> {
  return (
    (await cloud.ec2.send(new ec2.DescribeSecurityGroupsCommand({ Filters: [{ Name: "group-name", Values: [name] }] })))
      .SecurityGroups ?? []
  );
}

async function nodeGroupSources(): Promise<string[]> {
  const group = (await cloud.ec2.send(new ec2.DescribeSecurityGroupsCommand({ GroupIds: [cloud.nodeSecurityGroup] })))
    .SecurityGroups![0]!;
  return (group.IpPermissions ?? []).flatMap((p) =>
    (p.UserIdGroupPairs ?? []).map((g) => `${p.IpProtocol}:${g.GroupId}`),
  );
}

const ingressOf = (g: ec2.SecurityGroup): string[] =>
  (g.IpPermissions ?? [])
    .flatMap((p) => (p.IpRanges ?? []).map((r) => `${p.IpProtocol}:${p.FromPort}-${p.ToPort}:${r.CidrIp}`))
    .sort();

async function attributes(): Promise<elb.LoadBalancerAttributes> {
  return (await cloud.elb.send(new elb.DescribeLoadBalancerAttributesCommand({ LoadBalancerName: NAME })))
    .LoadBalancerAttributes!;
}

describe("aws classic ELB (moto)", () => {
  test("ensure builds the ELB: listeners, subnets, health check, own security group, node rule, instances, tags, hostname", async () => {
    const ensured = await lb.ensureLoadBalancer("kubernetes", service(), nodes);
    const d = await describeElb();
    expect(ensured).toEqual({ status: { ingress: [{ hostname: d.DNSName! }] }, warnings: [] });
    expect(d.Scheme).toBe("internet-facing");
    expect(
      d
        .ListenerDescriptions!.map(
          ({ Listener: l }) => `${l!.Protocol}:${l!.LoadBalancerPort}->${l!.InstanceProtocol}:${l!.InstancePort}`,
        )
        .sort(),
    ).toEqual(["TCP:443->TCP:30443", "TCP:80->TCP:30080"]);
    expect([...d.Subnets!].sort()).toEqual([...cloud.subnetIds].sort());
    expect(d.HealthCheck).toEqual({
      Target: "TCP:30080",
      HealthyThreshold: 2,
      UnhealthyThreshold: 6,
      Timeout: 5,
      Interval: 10,
    });
    expect(d.Instances!.map((i) => i.InstanceId).sort()).toEqual(launched.map((i) => i.id).sort());
    const [own] = await groupsNamed(`k8s-elb-${NAME}`);
    expect(d.SecurityGroups).toEqual([own!.GroupId!]);
    expect(ingressOf(own!)).toEqual(["icmp:3-4:0.0.0.0/0", "tcp:443-443:0.0.0.0/0", "tcp:80-80:0.0.0.0/0"]);
    expect(own!.Tags).toContainEqual({ Key: "kubernetes.io/cluster/test-cluster", Value: "owned" });
    expect(await nodeGroupSources()).toEqual([`-1:${own!.GroupId}`]);
    const tags = (await cloud.elb.send(new elb.DescribeTagsCommand({ LoadBalancerNames: [NAME] }))).TagDescriptions![0]!
      .Tags;
    expect(tags).toContainEqual({ Key: "kubernetes.io/cluster/test-cluster", Value: "owned" });
    expect(tags).toContainEqual({ Key: "kubernetes.io/service-name", Value: "shop/web" });
    expect(await lb.getLoadBalancer("kubernetes", service())).toEqual({ exists: true, status: ensured.status });
  });

  test("ensuring again changes nothing; a node leaving is deregistered, a node coming back registered", async () => {
    await lb.ensureLoadBalancer("kubernetes", service(), nodes);
    await lb.ensureLoadBalancer("kubernetes", service(), nodes);
    expect((await describeElb()).Instances).toHaveLength(2);
    expect(await nodeGroupSources()).toHaveLength(1);
    await lb.updateLoadBalancer("kubernetes", service(), nodes.slice(1));
    expect((await describeElb()).Instances!.map((i) => i.InstanceId)).toEqual([launched[1]!.id]);
    await lb.updateLoadBalancer("kubernetes", service(), nodes);
    expect((await describeElb()).Instances!.map((i) => i.InstanceId).sort()).toEqual(launched.map((i) => i.id).sort());
  });

  test("node changes follow target-node-labels alone: a refused annotation does not stop them (upstream)", async () => {
    await lb.ensureLoadBalancer("kubernetes", service(), nodes);
    const bad = service({ [`${P}healthcheck-interval`]: "fast", [`${P}internal`]: "true" });
    await lb.updateLoadBalancer("kubernetes", bad, nodes.slice(1));
    expect((await describeElb()).Instances!.map((i) => i.InstanceId)).toEqual([launched[1]!.id]);
  });

  // moto 5.2 deletes no listener when DeleteLoadBalancerListeners names several ports (its loop rebuilds the
  // list once per port); the reconcile deletes one port per call, which this test proves against moto.
  test("port and source-range changes update listeners and the ELB's ingress rules", async () => {
    await lb.ensureLoadBalancer("kubernetes", service(), nodes);
    await lb.ensureLoadBalancer(
      "kubernetes",
      service({}, { ports: [{ port: 8080, nodePort: 31080 }], loadBalancerSourceRanges: ["203.0.113.0/24"] }),
      nodes,
    );
    const d = await describeElb();
    expect(d.ListenerDescriptions!.map((l) => `${l.Listener!.LoadBalancerPort}->${l.Listener!.InstancePort}`)).toEqual([
      "8080->31080",
    ]);
    expect(d.HealthCheck!.Target).toBe("TCP:31080");
    const [own] = await groupsNamed(`k8s-elb-${NAME}`);
    expect(ingressOf(own!)).toEqual(["icmp:3-4:203.0.113.0/24", "tcp:8080-8080:203.0.113.0/24"]);
  });

  test("annotations: internal, health-check tuning, tags, cross-zone, draining, idle timeout, access log", async () => {
    const svc = service({
      [`${P}internal`]: "true",
      [`${P}healthcheck-protocol`]: "HTTP",
      [`${P}healthcheck-path`]: "/ready",
      [`${P}healthcheck-healthy-threshold`]: "3",
      [`${P}healthcheck-interval`]: "30",
      [`${P}additional-resource-tags`]: "team=web,tier=front",
      [`${P}cross-zone-load-balancing-enabled`]: "true",
      [`${P}connection-draining-enabled`]: "true",
      [`${P}connection-draining-timeout`]: "120",
      [`${P}connection-idle-timeout`]: "300",
      [`${P}access-log-enabled`]: "true",
      [`${P}access-log-emit-interval`]: "5",
      [`${P}access-log-s3-bucket-name`]: "elb-logs",
    });
    await lb.ensureLoadBalancer("kubernetes", svc, nodes);
    const d = await describeElb();
    expect(d.Scheme).toBe("internal");
    expect(d.HealthCheck).toEqual({
      Target: "HTTP:30080/ready",
      HealthyThreshold: 3,
      UnhealthyThreshold: 6,
      Timeout: 5,
      Interval: 30,
    });
    const tags = (await cloud.elb.send(new elb.DescribeTagsCommand({ LoadBalancerNames: [NAME] }))).TagDescriptions![0]!
      .Tags;
    expect(tags).toContainEqual({ Key: "team", Value: "web" });
    expect(tags).toContainEqual({ Key: "tier", Value: "front" });
    // The ELB's own group carries them too, as upstream's ensureSecurityGroup.
    const own = (await groupsNamed(`k8s-elb-${NAME}`))[0]!;
    expect(own.Tags).toContainEqual({ Key: "team", Value: "web" });
    expect(own.Tags).toContainEqual({ Key: "tier", Value: "front" });
    const a = await attributes();
    expect(a.CrossZoneLoadBalancing).toEqual({ Enabled: true });
    expect(a.ConnectionDraining).toEqual({ Enabled: true, Timeout: 120 });
    expect(a.ConnectionSettings).toEqual({ IdleTimeout: 300 });
    expect(a.AccessLog).toMatchObject({ Enabled: true, EmitInterval: 5, S3BucketName: "elb-logs" });
    expect((await rejection(lb.ensureLoadBalancer("kubernetes", service(), nodes))).message).toMatch(
      /aws-load-balancer-internal: cannot change ELB .* from internal to internet-facing/,
    );
  });

  test("security-groups replaces the own group, which is deleted with its node rule; extra-security-groups adds to it", async () => {
    const extra = (
      await cloud.ec2.send(
        new ec2.CreateSecurityGroupCommand({ GroupName: "extra", Description: "x", VpcId: cloud.vpcId }),
      )
    ).GroupId!;
    await lb.ensureLoadBalancer("kubernetes", service({ [`${P}extra-security-groups`]: extra }), nodes);
    const [own] = await groupsNamed(`k8s-elb-${NAME}`);
    expect((await describeElb()).SecurityGroups).toEqual([own!.GroupId!, extra]);
    await lb.ensureLoadBalancer("kubernetes", service({ [`${P}security-groups`]: extra }), nodes);
    expect((await describeElb()).SecurityGroups).toEqual([extra]);
    // Upstream's removeOwnedSecurityGroups: the replaced own group goes, and the rule admitting it.
    expect(await groupsNamed(`k8s-elb-${NAME}`)).toEqual([]);
    expect(await nodeGroupSources()).toEqual([`-1:${extra}`]);
    await lb.ensureLoadBalancerDeleted("kubernetes", service({ [`${P}security-groups`]: extra }));
    expect(await groupsNamed("extra")).toHaveLength(1);
    expect(await nodeGroupSources()).toEqual([]);
  });

  test("the node rule admitting a shared group is revoked when the last ELB carrying it is deleted or moves off it", async () => {
    const shared = (
      await cloud.ec2.send(
        new ec2.CreateSecurityGroupCommand({ GroupName: "shared", Description: "x", VpcId: cloud.vpcId }),
      )
    ).GroupId!;
    const annotated = { [`${P}security-groups`]: shared };
    const other = service(annotated);
    other.metadata = { ...other.metadata, name: "api", uid: "0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9" };
    await lb.ensureLoadBalancer("kubernetes", service(annotated), nodes);
    await lb.ensureLoadBalancer("kubernetes", other, nodes);
    expect(await nodeGroupSources()).toEqual([`-1:${shared}`]);
    await lb.ensureLoadBalancerDeleted("kubernetes", service(annotated));
    // The other ELB still relies on the rule.
    expect(await nodeGroupSources()).toEqual([`-1:${shared}`]);
    // Moving the last ELB on to another group closes the nodes to the former one.
    const next = (
      await cloud.ec2.send(
        new ec2.CreateSecurityGroupCommand({ GroupName: "next", Description: "x", VpcId: cloud.vpcId }),
      )
    ).GroupId!;
    other.metadata.annotations = { [`${P}security-groups`]: next };
    await lb.ensureLoadBalancer("kubernetes", other, nodes);
    expect(await nodeGroupSources()).toEqual([`-1:${next}`]);
    await lb.ensureLoadBalancerDeleted("kubernetes", other);
    expect(await nodeGroupSources()).toEqual([]);
    expect(await groupsNamed("shared")).toHaveLength(1);
  });

  test("ElbSecurityGroup: the configured group is opened on the nodes, and closed when its last ELB is deleted", async () => {
    const shared = (
      await cloud.ec2.send(
        new ec2.CreateSecurityGroupCommand({ GroupName: "elbs", Description: "x", VpcId: cloud.vpcId }),
      )
    ).GroupId!;
    const configured = awsTestProvider(cloud, { extra: `ElbSecurityGroup = ${shared}` }).loadBalancer!;
    await configured.ensureLoadBalancer("kubernetes", service(), nodes);
    expect((await describeElb()).SecurityGroups).toEqual([shared]);
    expect(await nodeGroupSources()).toEqual([`-1:${shared}`]);
    await configured.ensureLoadBalancerDeleted("kubernetes", service());
    expect(await nodeGroupSources()).toEqual([]);
    expect(await groupsNamed("elbs")).toHaveLength(1);
  });

  test("a replaced own group AWS still reports in use is retried (RetryError) until deleted; one the annotation names stays", async () => {
    await lb.ensureLoadBalancer("kubernetes", service(), nodes);
    const [own] = await groupsNamed(`k8s-elb-${NAME}`);
    const extra = (
      await cloud.ec2.send(
        new ec2.CreateSecurityGroupCommand({ GroupName: "extra", Description: "x", VpcId: cloud.vpcId }),
      )
    ).GroupId!;
    const both = service({ [`${P}security-groups`]: `${own!.GroupId!},${extra}` });
    await lb.ensureLoadBalancer("kubernetes", both, nodes);
    expect((await describeElb()).SecurityGroups).toEqual([own!.GroupId!, extra]);
    expect(await groupsNamed(`k8s-elb-${NAME}`)).toHaveLength(1);
    const proxy = faultProxy(cloud.endpoint, (_n, body) =>
      body.includes("Action=DeleteSecurityGroup") ? { code: "DependencyViolation", status: 400 } : "pass",
    );
    const moved = service({ [`${P}security-groups`]: extra });
    try {
      const lingering = awsTestProvider(cloud, {
        endpoint: proxy.endpoint,
        options: { securityGroupRetryMs: 1234 },
      }).loadBalancer!;
      const failure = await rejection(lingering.ensureLoadBalancer("kubernetes", moved, nodes));
      expect(failure).toBeInstanceOf(RetryError);
      expect((failure as RetryError).retryAfterMs).toBe(1234);
    } finally {
      await proxy.stop();
    }
    expect((await describeElb()).SecurityGroups).toEqual([extra]);
    expect(await groupsNamed(`k8s-elb-${NAME}`)).toHaveLength(1);
    await lb.ensureLoadBalancer("kubernetes", moved, nodes);
    expect(await groupsNamed(`k8s-elb-${NAME}`)).toEqual([]);
  });

  test("subnets and target-node-labels annotations choose subnets and backends (a bare key: the label present)", async () => {
    await cloud.ec2.send(
      new ec2.CreateTagsCommand({ Resources: [cloud.subnetIds[1]!], Tags: [{ Key: "Name", Value: "public-b" }] }),
    );
    // A subnet of the same name in another VPC is not the annotation's.
    const elsewhere = (await cloud.ec2.send(new ec2.CreateVpcCommand({ CidrBlock: "10.9.0.0/16" }))).Vpc!.VpcId!;
    const twin = (await cloud.ec2.send(new ec2.CreateSubnetCommand({ VpcId: elsewhere, CidrBlock: "10.9.1.0/24" })))
      .Subnet!.SubnetId!;
    await cloud.ec2.send(new ec2.CreateTagsCommand({ Resources: [twin], Tags: [{ Key: "Name", Value: "public-b" }] }));
    const labelled = [
      { ...nodes[0]!, metadata: { ...nodes[0]!.metadata, labels: { role: "edge", spot: "yes" } } },
      { ...nodes[1]!, metadata: { ...nodes[1]!.metadata, labels: { role: "core", spot: "" } } },
    ];
    await lb.ensureLoadBalancer(
      "kubernetes",
      service({ [`${P}subnets`]: "public-b", [`${P}target-node-labels`]: "role=edge,spot" }),
      labelled,
    );
    const d = await describeElb();
    expect(d.Subnets).toEqual([cloud.subnetIds[1]!]);
    expect(d.Instances!.map((i) => i.InstanceId)).toEqual([launched[0]!.id]);
    await lb.updateLoadBalancer(
      "kubernetes",
      service({ [`${P}subnets`]: "public-b", [`${P}target-node-labels`]: "spot" }),
      labelled,
    );
    expect((await describeElb()).Instances!.map((i) => i.InstanceId).sort()).toEqual(
      launched
        .slice(0, 2)
        .map((i) => i.id)
        .sort(),
    );
  });

  test("unsupported harmless annotations are warnings; bad values and unsupported types are refused before any change", async () => {
    const ensured = await lb.ensureLoadBalancer(
      "kubernetes",
      service({ [`${P}eip-allocations`]: "eipalloc-1" }),
      nodes,
    );
    expect(ensured.warnings).toEqual([
      {
        reason: "UnsupportedAnnotation",
        message: `annotation ${P}eip-allocations only applies to network load balancers; ignored for this classic ELB`,
      },
    ]);
    const bad = service({ [`${P}healthcheck-interval`]: "often" });
    const other = { ...bad, metadata: { ...bad.metadata, uid: crypto.randomUUID() } };
    expect((await rejection(lb.ensureLoadBalancer("kubernetes", other, nodes))).message).toContain(
      `annotation ${P}healthcheck-interval: invalid value "often"`,
    );
    expect(await lb.getLoadBalancer("kubernetes", other)).toEqual({ exists: false, status: {} });
    expect(
      await rejection(lb.ensureLoadBalancer("kubernetes", service({ [`${P}type`]: "external" }), nodes)),
    ).toBeInstanceOf(ImplementedElsewhereError);
  });

  test("ElbSecurityGroup and DisableSecurityGroupIngress: no own group, node groups untouched", async () => {
    const shared = (
      await cloud.ec2.send(
        new ec2.CreateSecurityGroupCommand({ GroupName: "elbs", Description: "x", VpcId: cloud.vpcId }),
      )
    ).GroupId!;
    const configured = awsTestProvider(cloud, {
      extra: `ElbSecurityGroup = ${shared}\nDisableSecurityGroupIngress = true`,
    }).loadBalancer!;
    await configured.ensureLoadBalancer("kubernetes", service(), nodes);
    expect((await describeElb()).SecurityGroups).toEqual([shared]);
    expect(await groupsNamed(`k8s-elb-${NAME}`)).toEqual([]);
    expect(await nodeGroupSources()).toEqual([]);
    await configured.ensureLoadBalancerDeleted("kubernetes", service());
    expect(await groupsNamed("elbs")).toHaveLength(1);
  });

  test("delete removes the ELB, its security group and the node rule; deleting again is fine", async () => {
    await lb.ensureLoadBalancer("kubernetes", service(), nodes);
    await lb.ensureLoadBalancerDeleted("kubernetes", service());
    expect(
      (await rejection(cloud.elb.send(new elb.DescribeLoadBalancersCommand({ LoadBalancerNames: [NAME] })))).name,
    ).toBe("AccessPointNotFoundException");
    expect(await groupsNamed(`k8s-elb-${NAME}`)).toEqual([]);
    expect(await nodeGroupSources()).toEqual([]);
    await lb.ensureLoadBalancerDeleted("kubernetes", service());
    expect(await lb.getLoadBalancer("kubernetes", service())).toEqual({ exists: false, status: {} });
  });

  test("a security group AWS still reports in use is retried after a fixed delay (RetryError), then deleted", async () => {
    await lb.ensureLoadBalancer("kubernetes", service(), nodes);
    // moto deletes groups at once; AWS answers DependencyViolation while the deleted ELB's interfaces linger.
    const proxy = faultProxy(cloud.endpoint, (_n, body) =>
      body.includes("Action=DeleteSecurityGroup") ? { code: "DependencyViolation", status: 400 } : "pass",
    );
    try {
      const lingering = awsTestProvider(cloud, {
        endpoint: proxy.endpoint,
        options: { securityGroupRetryMs: 1234 },
      }).loadBalancer!;
      const failure = await rejection(lingering.ensureLoadBalancerDeleted("kubernetes", service()));
      expect(failure).toBeInstanceOf(RetryError);
      expect((failure as RetryError).retryAfterMs).toBe(1234);
      expect(await groupsNamed(`k8s-elb-${NAME}`)).toHaveLength(1);
    } finally {
      await proxy.stop();
    }
    expect(await lb.getLoadBalancer("kubernetes", service())).toEqual({ exists: false, status: {} });
    await lb.ensureLoadBalancerDeleted("kubernetes", service());
    expect(await groupsNamed(`k8s-elb-${NAME}`)).toEqual([]);
  });

  test("externalTrafficPolicy Local health-checks the health-check NodePort", async () => {
    await lb.ensureLoadBalancer(
      "kubernetes",
      service({}, { externalTrafficPolicy: "Local", healthCheckNodePort: 32123 }),
      nodes,
    );
    expect((await describeElb()).HealthCheck!.Target).toBe("HTTP:32123/healthz");
  });
});
