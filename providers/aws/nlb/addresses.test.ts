/** Fixed NLB addresses: table tests of the plan, and against moto (which takes but does not report subnet mappings). */
import { beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import * as ec2 from "@aws-sdk/client-ec2";
import * as elbv2 from "@aws-sdk/client-elastic-load-balancing-v2";
import type { LoadBalancer } from "../../../src/cloud/provider.ts";
import type { Node, Service } from "../../../src/kube/objects.ts";
import { requestFor, requestsOf } from "../../../test/harness/aws-acm.ts";
import { loadBalancerBed, type AwsTestCloud } from "../../../test/harness/aws-cloud.ts";
import { rejection } from "../../../test/harness/rejection.ts";
import { fixedAddressConflict, inZoneOrder, readFixedAddresses, subnetMappings } from "./addresses.ts";

setDefaultTimeout(180_000);

const P = "service.beta.kubernetes.io/aws-load-balancer-";
/** Zone order (upstream's) and ID order differ: subnet-b is in the first zone. */
const SUBNETS = [
  { id: "subnet-b", cidr: "10.0.2.0/24", zone: "eu-west-1a" },
  { id: "subnet-a", cidr: "10.0.1.0/24", zone: "eu-west-1b" },
];
const read = (a: Record<string, string>) => (name: string) => a[name];

describe("fixed NLB addresses (plan)", () => {
  test("Elastic IPs pair with the subnets in order; private addresses go to the subnet holding them", () => {
    expect(
      subnetMappings(SUBNETS, readFixedAddresses(read({ "eip-allocations": "eipalloc-1, eipalloc-2" }), false)),
    ).toEqual([
      { SubnetId: "subnet-b", AllocationId: "eipalloc-1" },
      { SubnetId: "subnet-a", AllocationId: "eipalloc-2" },
    ]);
    expect(
      subnetMappings(SUBNETS, readFixedAddresses(read({ "private-ipv4-addresses": "10.0.1.10,10.0.2.10" }), true)),
    ).toEqual([
      { SubnetId: "subnet-b", PrivateIPv4Address: "10.0.2.10" },
      { SubnetId: "subnet-a", PrivateIPv4Address: "10.0.1.10" },
    ]);
    expect(subnetMappings(SUBNETS, readFixedAddresses(read({}), false))).toBeUndefined();
  });

  test("the subnets are paired in upstream's order: by zone name (findELBSubnets), then by ID", () => {
    const three = [...SUBNETS, { id: "subnet-0", cidr: "10.0.3.0/24", zone: "eu-west-1b" }];
    expect(inZoneOrder([...three].reverse()).map((s) => s.id)).toEqual(["subnet-b", "subnet-0", "subnet-a"]);
  });

  test.each([
    [
      { "eip-allocations": "eipalloc-1" },
      false,
      /eip-allocations: invalid value "eipalloc-1": 1 allocations for 2 subnets \(subnet-b, subnet-a\)/,
    ],
    [
      { "private-ipv4-addresses": "10.0.1.10,10.0.1.11" },
      true,
      /subnet subnet-b \(10.0.2.0\/24\) holds 0 of the addresses/,
    ],
    [{ "private-ipv4-addresses": "10.0.1.10,10.0.9.9" }, true, /holds 0 of the addresses/],
  ] as [Record<string, string>, boolean, RegExp][])(
    "%p: a mismatch with the subnets is refused",
    (annotations, internal, message) => {
      expect(() => subnetMappings(SUBNETS, readFixedAddresses(read(annotations), internal))).toThrow(message);
    },
  );

  test.each([
    [{ "eip-allocations": "10.0.0.1" }, false, /not an Elastic IP allocation ID/],
    [{ "private-ipv4-addresses": "10.0.1.300" }, true, /not an IPv4 address/],
    [{ "private-ipv4-addresses": "fd00::1" }, true, /not an IPv4 address/],
    [{ "eip-allocations": "eipalloc-1" }, true, /need an internet-facing NLB/],
    [{ "private-ipv4-addresses": "10.0.1.10" }, false, /need an internal NLB/],
  ] as [Record<string, string>, boolean, RegExp][])("%p is refused", (annotations, internal, message) => {
    expect(() => readFixedAddresses(read(annotations), internal)).toThrow(message);
  });

  test("a live NLB with other addresses than asked conflicts; one reporting none, or no annotation, does not", () => {
    const lb = {
      LoadBalancerName: "a1",
      AvailabilityZones: [
        {
          SubnetId: "subnet-a",
          LoadBalancerAddresses: [{ AllocationId: "eipalloc-1", PrivateIPv4Address: "10.0.1.5" }],
        },
      ],
    };
    expect(fixedAddressConflict(lb, [{ SubnetId: "subnet-a", AllocationId: "eipalloc-1" }])).toBeUndefined();
    expect(fixedAddressConflict(lb, [{ SubnetId: "subnet-a", AllocationId: "eipalloc-2" }])).toMatch(
      /eip-allocations: NLB a1 has subnet-a=eipalloc-1; AWS cannot change/,
    );
    expect(fixedAddressConflict(lb, [{ SubnetId: "subnet-a", PrivateIPv4Address: "10.0.1.9" }])).toMatch(
      /private-ipv4-addresses/,
    );
    expect(fixedAddressConflict(lb, undefined)).toBeUndefined();
    expect(
      fixedAddressConflict({ AvailabilityZones: [{ SubnetId: "subnet-a" }] }, [
        { SubnetId: "subnet-a", AllocationId: "eipalloc-2" },
      ]),
    ).toBeUndefined();
    const chosenByAws = {
      LoadBalancerName: "a1",
      AvailabilityZones: [{ SubnetId: "subnet-a", LoadBalancerAddresses: [{ IpAddress: "3.3.3.3" }] }],
    };
    expect(fixedAddressConflict(chosenByAws, [{ SubnetId: "subnet-a", AllocationId: "eipalloc-2" }])).toMatch(
      /has subnet-a=none; AWS cannot change/,
    );
  });
});

let cloud: AwsTestCloud;
let lb: LoadBalancer;
let nodes: Node[];

function service(annotations: Record<string, string>): Service {
  return {
    metadata: {
      name: "edge",
      namespace: "infra",
      uid: "9c1e2d3c-4b5a-6978-8695-a4b3c2d1e0f9",
      annotations: { [`${P}type`]: "nlb", ...annotations },
    },
    spec: { type: "LoadBalancer", ports: [{ name: "https", port: 443, nodePort: 30443 }] },
  };
}

async function allocate(): Promise<string> {
  return (await cloud.ec2.send(new ec2.AllocateAddressCommand({ Domain: "vpc" }))).AllocationId!;
}

async function loadBalancers(): Promise<elbv2.LoadBalancer[]> {
  return (await cloud.elbv2.send(new elbv2.DescribeLoadBalancersCommand({}))).LoadBalancers ?? [];
}

describe("fixed NLB addresses (moto)", () => {
  beforeEach(async () => {
    ({ cloud, lb, nodes } = await loadBalancerBed());
  });

  test("request sent (moto does not report subnet mappings): one Elastic IP per subnet, subnets in zone order", async () => {
    const eips = [await allocate(), await allocate()];
    const bodies = await requestsOf(cloud, async (viaProxy) => {
      await viaProxy.ensureLoadBalancer("kubernetes", service({ [`${P}eip-allocations`]: eips.join(",") }), nodes);
    });
    const create = requestFor(bodies, "CreateLoadBalancer");
    const described = (await cloud.ec2.send(new ec2.DescribeSubnetsCommand({ SubnetIds: [...cloud.subnetIds] })))
      .Subnets!;
    const byZone = described
      .sort((a, b) => (a.AvailabilityZone! < b.AvailabilityZone! ? -1 : 1))
      .map((s) => s.SubnetId!);
    const sorted = [...cloud.subnetIds].sort();
    expect(
      [1, 2].map((i) => [
        create.get(`SubnetMappings.member.${i}.SubnetId`),
        create.get(`SubnetMappings.member.${i}.AllocationId`),
      ]),
    ).toEqual([
      [byZone[0]!, eips[0]!],
      [byZone[1]!, eips[1]!],
    ]);
    expect(create.get("Subnets.member.1")).toBeNull();
    expect((await loadBalancers()).map((l) => l.AvailabilityZones?.map((z) => z.SubnetId).sort())).toEqual([sorted]);
  });

  test("request sent: private addresses for an internal NLB go to the subnets holding them", async () => {
    const subnets = (await cloud.ec2.send(new ec2.DescribeSubnetsCommand({ SubnetIds: [...cloud.subnetIds] })))
      .Subnets!;
    const ips = subnets.map((s) => s.CidrBlock!.replace(/\.0\/\d+$/, ".200"));
    const bodies = await requestsOf(cloud, async (viaProxy) => {
      await viaProxy.ensureLoadBalancer(
        "kubernetes",
        service({ [`${P}internal`]: "true", [`${P}private-ipv4-addresses`]: ips.reverse().join(",") }),
        nodes,
      );
    });
    const create = requestFor(bodies, "CreateLoadBalancer");
    const sent = [1, 2]
      .map(
        (i) =>
          `${create.get(`SubnetMappings.member.${i}.SubnetId`)}=${create.get(`SubnetMappings.member.${i}.PrivateIPv4Address`)}`,
      )
      .sort();
    expect(sent).toEqual(subnets.map((s) => `${s.SubnetId}=${s.CidrBlock!.replace(/\.0\/\d+$/, ".200")}`).sort());
  });

  test("one Elastic IP for two subnets is refused before anything is created", async () => {
    const failure = await rejection(
      lb.ensureLoadBalancer("kubernetes", service({ [`${P}eip-allocations`]: await allocate() }), nodes),
    );
    expect(failure.message).toMatch(
      /aws-load-balancer-eip-allocations: invalid value "eipalloc-[0-9a-f]+": 1 allocations for 2 subnets/,
    );
    expect(await loadBalancers()).toEqual([]);
    expect((await cloud.elbv2.send(new elbv2.DescribeTargetGroupsCommand({}))).TargetGroups ?? []).toEqual([]);
  });
});
