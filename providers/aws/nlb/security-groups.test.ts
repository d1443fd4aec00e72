/** Bring-your-own security groups on NLBs (upstream's `security-groups` on an NLB) against moto. */
import { beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import * as ec2 from "@aws-sdk/client-ec2";
import * as elbv2 from "@aws-sdk/client-elastic-load-balancing-v2";
import type { LoadBalancer } from "../../../src/cloud/provider.ts";
import type { Node, Service } from "../../../src/kube/objects.ts";
import { awsTestProvider, loadBalancerBed, type AwsTestCloud } from "../../../test/harness/aws-cloud.ts";
import { rejection } from "../../../test/harness/rejection.ts";

setDefaultTimeout(180_000);

const P = "service.beta.kubernetes.io/aws-load-balancer-";
const NAME = "ad11e2d3c4b5a69788695a4b3c2d1e0f";

let cloud: AwsTestCloud;
let lb: LoadBalancer;
let nodes: Node[];

beforeEach(async () => {
  ({ cloud, lb, nodes } = await loadBalancerBed());
});

function service(annotations: Record<string, string> = {}): Service {
  return {
    metadata: {
      name: "gw",
      namespace: "edge",
      uid: "d11e2d3c-4b5a-6978-8695-a4b3c2d1e0f9",
      annotations: { [`${P}type`]: "nlb", ...annotations },
    },
    spec: {
      type: "LoadBalancer",
      loadBalancerSourceRanges: ["203.0.113.0/24"],
      ports: [{ name: "https", port: 443, nodePort: 30443 }],
    },
  };
}

async function group(name: string): Promise<string> {
  return (
    await cloud.ec2.send(new ec2.CreateSecurityGroupCommand({ GroupName: name, Description: name, VpcId: cloud.vpcId }))
  ).GroupId!;
}

async function frontendRules(id: string): Promise<string[]> {
  const g = (await cloud.ec2.send(new ec2.DescribeSecurityGroupsCommand({ GroupIds: [id] }))).SecurityGroups![0]!;
  return (g.IpPermissions ?? []).flatMap((p) =>
    (p.IpRanges ?? []).map((r) => `${p.IpProtocol}:${p.FromPort}:${r.CidrIp}:${r.Description}`),
  );
}

async function nlbGroups(): Promise<string[]> {
  return (
    (await cloud.elbv2.send(new elbv2.DescribeLoadBalancersCommand({ Names: [NAME] }))).LoadBalancers![0]!
      .SecurityGroups ?? []
  );
}

describe("NLB security groups (moto)", () => {
  test("annotated groups go on the NLB as they are (no rules added, theirs kept); a change moves them; deletion leaves them", async () => {
    const [one, two] = [await group("byo-one"), await group("byo-two")];
    const locked = {
      GroupId: one,
      IpPermissions: [
        { IpProtocol: "tcp", FromPort: 443, ToPort: 443, IpRanges: [{ CidrIp: "10.9.0.0/16", Description: "vpn" }] },
      ],
    };
    await cloud.ec2.send(new ec2.AuthorizeSecurityGroupIngressCommand(locked));
    await lb.ensureLoadBalancer("kubernetes", service({ [`${P}security-groups`]: one }), nodes);
    expect(await nlbGroups()).toEqual([one]);
    expect(await frontendRules(one)).toEqual(["tcp:443:10.9.0.0/16:vpn"]);
    await lb.ensureLoadBalancer("kubernetes", service({ [`${P}security-groups`]: two }), nodes);
    expect(await nlbGroups()).toEqual([two]);
    expect(await frontendRules(one)).toEqual(["tcp:443:10.9.0.0/16:vpn"]);
    expect(await frontendRules(two)).toEqual([]);
    await lb.ensureLoadBalancerDeleted("kubernetes", service());
    expect(await frontendRules(two)).toEqual([]);
    expect(
      (await cloud.ec2.send(new ec2.DescribeSecurityGroupsCommand({ GroupIds: [one, two] }))).SecurityGroups,
    ).toHaveLength(2);
  });

  test("deleting an NLB leaves a rule on the nodes admitting its annotated group: that rule is a classic ELB's, or the operator's", async () => {
    const byo = await group("byo");
    const admit = { IpProtocol: "-1", UserIdGroupPairs: [{ GroupId: byo }] };
    await cloud.ec2.send(
      new ec2.AuthorizeSecurityGroupIngressCommand({ GroupId: cloud.nodeSecurityGroup, IpPermissions: [admit] }),
    );
    const annotated = service({ [`${P}security-groups`]: byo });
    await lb.ensureLoadBalancer("kubernetes", annotated, nodes);
    await lb.ensureLoadBalancerDeleted("kubernetes", annotated);
    const nodeGroup = (
      await cloud.ec2.send(new ec2.DescribeSecurityGroupsCommand({ GroupIds: [cloud.nodeSecurityGroup] }))
    ).SecurityGroups![0]!;
    const sources = (nodeGroup.IpPermissions ?? []).flatMap((p) => (p.UserIdGroupPairs ?? []).map((g) => g.GroupId));
    expect(sources).toEqual([byo]);
  });

  test("groups asked for on an NLB created without any are refused; nothing changes", async () => {
    await lb.ensureLoadBalancer("kubernetes", service(), nodes);
    const sg = await group("late");
    const failure = await rejection(
      lb.ensureLoadBalancer("kubernetes", service({ [`${P}security-groups`]: sg }), nodes),
    );
    expect(failure.message).toMatch(
      /security-groups: NLB .* was created without security groups and AWS cannot add them; recreate the Service/,
    );
    expect(await nlbGroups()).toEqual([]);
    expect(await frontendRules(sg)).toEqual([]);
  });
});

/** Upstream's GetSecurityGroupNameForNLB for `service()` under --cluster-name=kubernetes (managed-group.test.ts). */
const MANAGED = "k8s-edge-gw-3c66b4817e";

async function groupsNamed(name: string): Promise<ec2.SecurityGroup[]> {
  const filters = [{ Name: "group-name", Values: [name] }];
  return (await cloud.ec2.send(new ec2.DescribeSecurityGroupsCommand({ Filters: filters }))).SecurityGroups ?? [];
}

describe("NLB managed security group (NLBSecurityGroupMode = Managed, moto)", () => {
  const managed = (): LoadBalancer =>
    awsTestProvider(cloud, { extra: "NLBSecurityGroupMode = Managed", options: { cacheMaxAgeMs: 0 } }).loadBalancer!;

  test("a new NLB gets its own group, named and described as upstream's; a port change follows; deletion removes it", async () => {
    const provider = managed();
    await provider.ensureLoadBalancer("kubernetes", service(), nodes);
    const [own] = await groupsNamed(MANAGED);
    expect(own?.Description).toBe("[k8s] Managed SecurityGroup for LoadBalancer");
    expect(await nlbGroups()).toEqual([own!.GroupId!]);
    expect(own!.Tags).toContainEqual({ Key: "kubernetes.io/cluster/test-cluster", Value: "owned" });
    // Upstream's ensureNLBSecurityGroupRules: the listener ports and ICMP fragmentation-needed (3/4).
    expect((await frontendRules(own!.GroupId!)).sort()).toEqual([
      "icmp:3:203.0.113.0/24:undefined",
      "tcp:443:203.0.113.0/24:undefined",
    ]);
    expect(await groupsNamed(`k8s-elb-${NAME}`)).toEqual([]);
    const more = service();
    more.spec!.ports = [...more.spec!.ports!, { name: "quic", port: 8443, nodePort: 30843 }];
    await provider.ensureLoadBalancer("kubernetes", more, nodes);
    expect((await frontendRules(own!.GroupId!)).sort()).toEqual([
      "icmp:3:203.0.113.0/24:undefined",
      "tcp:443:203.0.113.0/24:undefined",
      "tcp:8443:203.0.113.0/24:undefined",
    ]);
    await provider.ensureLoadBalancerDeleted("kubernetes", more);
    expect(await groupsNamed(MANAGED)).toEqual([]);
  });

  test("annotated groups dropped: the NLB moves to its managed group, as upstream; the annotated group stays", async () => {
    const provider = managed();
    const byo = await group("byo-one");
    await provider.ensureLoadBalancer("kubernetes", service({ [`${P}security-groups`]: byo }), nodes);
    expect(await nlbGroups()).toEqual([byo]);
    expect(await groupsNamed(MANAGED)).toEqual([]);
    await provider.ensureLoadBalancer("kubernetes", service(), nodes);
    const [own] = await groupsNamed(MANAGED);
    expect(await nlbGroups()).toEqual([own!.GroupId!]);
    expect((await frontendRules(own!.GroupId!)).sort()).toEqual([
      "icmp:3:203.0.113.0/24:undefined",
      "tcp:443:203.0.113.0/24:undefined",
    ]);
    expect(await frontendRules(byo)).toEqual([]);
    await provider.ensureLoadBalancerDeleted("kubernetes", service());
    expect(await groupsNamed(MANAGED)).toEqual([]);
    expect(await groupsNamed("byo-one")).toHaveLength(1);
  });

  test("annotated groups replacing the managed group: it is deleted once the NLB is in step; the annotated group stays", async () => {
    const provider = managed();
    await provider.ensureLoadBalancer("kubernetes", service(), nodes);
    expect(await groupsNamed(MANAGED)).toHaveLength(1);
    const byo = await group("byo-one");
    await provider.ensureLoadBalancer("kubernetes", service({ [`${P}security-groups`]: byo }), nodes);
    expect(await nlbGroups()).toEqual([byo]);
    expect(await groupsNamed(MANAGED)).toEqual([]);
    expect(
      (await cloud.ec2.send(new ec2.DescribeSecurityGroupsCommand({ GroupIds: [byo] }))).SecurityGroups,
    ).toHaveLength(1);
    await provider.ensureLoadBalancerDeleted("kubernetes", service({ [`${P}security-groups`]: byo }));
    expect(await groupsNamed("byo-one")).toHaveLength(1);
  });

  test("an NLB made by an earlier version with k8s-elb-<name> keeps that group in step, gets no second one, and loses it on deletion", async () => {
    const provider = managed();
    const legacy = await cloud.ec2.send(
      new ec2.CreateSecurityGroupCommand({
        GroupName: `k8s-elb-${NAME}`,
        Description: "Security group for Kubernetes ELB",
        VpcId: cloud.vpcId,
        TagSpecifications: [
          { ResourceType: "security-group", Tags: [{ Key: "kubernetes.io/cluster/test-cluster", Value: "owned" }] },
        ],
      }),
    );
    await cloud.elbv2.send(
      new elbv2.CreateLoadBalancerCommand({
        Name: NAME,
        Type: "network",
        Subnets: [cloud.subnetIds[0]!],
        SecurityGroups: [legacy.GroupId!],
      }),
    );
    await provider.ensureLoadBalancer("kubernetes", service(), nodes);
    expect(await nlbGroups()).toEqual([legacy.GroupId!]);
    expect((await frontendRules(legacy.GroupId!)).sort()).toEqual([
      "icmp:3:203.0.113.0/24:undefined",
      "tcp:443:203.0.113.0/24:undefined",
    ]);
    expect(await groupsNamed(MANAGED)).toEqual([]);
    await provider.ensureLoadBalancerDeleted("kubernetes", service());
    expect(await groupsNamed(`k8s-elb-${NAME}`)).toEqual([]);
  });
});
