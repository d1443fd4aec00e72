import { describe, expect, test } from "bun:test";
import type { RouteTable, Subnet } from "@aws-sdk/client-ec2";
import type { AwsApi } from "./api.ts";
import { chooseSubnets, findSubnets } from "./lb-subnets.ts";
import { ZoneCache } from "./zones.ts";

const cluster = { clusterID: "c1", legacy: false };
const subnet = (id: string, zone: string, tags: Record<string, string> = {}): Subnet => ({
  SubnetId: id,
  AvailabilityZone: zone,
  Tags: Object.entries(tags).map(([Key, Value]) => ({ Key, Value })),
});
const igwTable = (...subnets: string[]): RouteTable => ({
  Routes: [{ GatewayId: "igw-1", DestinationCidrBlock: "0.0.0.0/0" }],
  Associations: subnets.map((SubnetId) => ({ SubnetId })),
});
const privateMain: RouteTable = { Routes: [{ GatewayId: "local" }], Associations: [{ Main: true }] };

describe("ELB subnet discovery", () => {
  test("internet-facing ELBs use public subnets only, one per zone", () => {
    const subnets = [
      subnet("subnet-a1", "a"),
      subnet("subnet-a2", "a"),
      subnet("subnet-b1", "b"),
      subnet("subnet-c1", "c"),
    ];
    expect(
      chooseSubnets(subnets, [igwTable("subnet-a1", "subnet-a2", "subnet-b1"), privateMain], false, cluster),
    ).toEqual(["subnet-a1", "subnet-b1"]);
  });

  test("internal ELBs may use private subnets", () => {
    expect(chooseSubnets([subnet("subnet-c1", "c")], [privateMain], true, cluster)).toEqual(["subnet-c1"]);
  });

  test("an unassociated subnet follows the main route table", () => {
    const publicMain: RouteTable = { ...igwTable(), Associations: [{ Main: true }] };
    expect(chooseSubnets([subnet("subnet-a1", "a")], [publicMain], false, cluster)).toEqual(["subnet-a1"]);
  });

  test("the role tag wins over the cluster tag, which wins over the lowest ID", () => {
    const subnets = [
      subnet("subnet-1", "a"),
      subnet("subnet-2", "a", { "kubernetes.io/cluster/c1": "shared" }),
      subnet("subnet-3", "a", { "kubernetes.io/role/elb": "1" }),
      subnet("subnet-4", "b"),
      subnet("subnet-5", "b", { "kubernetes.io/cluster/c1": "owned" }),
    ];
    const table = igwTable("subnet-1", "subnet-2", "subnet-3", "subnet-4", "subnet-5");
    expect(chooseSubnets(subnets, [table], false, cluster)).toEqual(["subnet-3", "subnet-5"]);
    expect(chooseSubnets(subnets, [table], true, cluster)).toEqual(["subnet-2", "subnet-5"]);
  });

  test("subnets tagged for another cluster are not used", () => {
    const subnets = [subnet("subnet-1", "a", { "kubernetes.io/cluster/other": "owned" })];
    expect(chooseSubnets(subnets, [igwTable("subnet-1")], false, cluster)).toEqual([]);
  });
});

describe("ELB subnets and zone types", () => {
  const subnets = [subnet("subnet-a1", "us-west-2a"), subnet("subnet-lz1", "us-west-2-lax-1a")];
  const api = {
    ec2: {
      describeSubnets: (input: { Filters: { Name: string; Values: string[] }[] }) => {
        const ids = input.Filters.find((f) => f.Name === "subnet-id")?.Values;
        return Promise.resolve({ Subnets: subnets.filter((s) => !ids || ids.includes(s.SubnetId!)) });
      },
      describeRouteTables: () => Promise.resolve({ RouteTables: [igwTable("subnet-a1", "subnet-lz1")] }),
      describeAvailabilityZones: () =>
        Promise.resolve({
          AvailabilityZones: [
            { ZoneName: "us-west-2a", ZoneId: "usw2-az1", ZoneType: "availability-zone" },
            { ZoneName: "us-west-2-lax-1a", ZoneId: "usw2-lax1-az1", ZoneType: "local-zone" },
          ],
        }),
    },
  } as unknown as AwsApi;
  const query = { vpc: "vpc-1", internal: false, fallback: "" };

  test("subnets in Local Zones or Wavelength Zones are left out, as upstream's findELBSubnets", async () => {
    expect(await findSubnets({ api, zones: new ZoneCache(api), cluster }, { ...query, annotated: [] })).toEqual([
      "subnet-a1",
    ]);
  });

  test("annotated subnets are used as named, whatever their zone", async () => {
    expect(
      await findSubnets({ api, zones: new ZoneCache(api), cluster }, { ...query, annotated: ["subnet-lz1"] }),
    ).toEqual(["subnet-lz1"]);
  });
});
