/** Routes against moto: the cluster's route table, source/dest check, node names, blackholes. */
import { beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import * as ec2 from "@aws-sdk/client-ec2";
import type { Lister } from "../../src/kube/informer.ts";
import type { Node } from "../../src/kube/objects.ts";
import type { CloudProvider, Route } from "../../src/cloud/provider.ts";
import { faultProxy } from "../../test/harness/aws-faults.ts";
import { rejection } from "../../test/harness/rejection.ts";
import { awsTestCloud, awsTestProvider, type AwsTestCloud, type TestInstance } from "../../test/harness/aws-cloud.ts";

// The first test of a run may install moto into the cache and start it; hooks default to 5 s.
setDefaultTimeout(180_000);

let cloud: AwsTestCloud;

beforeEach(async () => {
  cloud = await awsTestCloud();
});

function lister(nodes: Node[]): Lister<Node> {
  const byName = new Map(nodes.map((n) => [n.metadata.name, n]));
  return { get: (k) => byName.get(k), list: () => [...byName.values()], size: byName.size };
}

async function provider(nodes: Node[] = [], extra = ""): Promise<CloudProvider> {
  const p = awsTestProvider(cloud, { extra, options: { cacheMaxAgeMs: 0 } });
  await p.initialize?.({
    signal: new AbortController().signal,
    nodes: lister(nodes),
    services: lister([]) as never,
    waitForSync: () => Promise.resolve(true),
    kube: undefined as never,
  });
  return p;
}

const route = (targetNode: string, destinationCIDR: string): Route => ({
  name: "",
  targetNode,
  destinationCIDR,
  blackhole: false,
});

async function tableRoutes(tableId = cloud.routeTableId): Promise<ec2.Route[]> {
  const table = (await cloud.ec2.send(new ec2.DescribeRouteTablesCommand({ RouteTableIds: [tableId] })))
    .RouteTables![0]!;
  return (table.Routes ?? []).filter((r) => r.InstanceId);
}

async function sourceDestCheck(i: TestInstance): Promise<boolean | undefined> {
  return (
    await cloud.ec2.send(new ec2.DescribeInstanceAttributeCommand({ InstanceId: i.id, Attribute: "sourceDestCheck" }))
  ).SourceDestCheck?.Value;
}

describe("aws routes (moto)", () => {
  test("a route to a node lands in the cluster's tagged table, pointing at its instance, with source/dest check off", async () => {
    const i = await cloud.launch();
    const routes = (await provider()).routes!;
    expect(await sourceDestCheck(i)).toBe(true);
    await routes.createRoute("kubernetes", "uid-1", route(i.privateDnsName, "10.244.1.0/24"));
    expect(await sourceDestCheck(i)).toBe(false);
    expect((await tableRoutes()).map((r) => [r.DestinationCidrBlock, r.InstanceId])).toEqual([["10.244.1.0/24", i.id]]);
    expect(await routes.listRoutes("kubernetes")).toEqual([
      {
        name: "kubernetes-10.244.1.0/24",
        targetNode: i.privateDnsName,
        destinationCIDR: "10.244.1.0/24",
        blackhole: false,
      },
    ]);
    await routes.createRoute("kubernetes", "uid-1", route(i.privateDnsName, "10.244.1.0/24"));
    expect(await tableRoutes()).toHaveLength(1);
  });

  test("routes map back to Node names through the nodes' providerIDs", async () => {
    const i = await cloud.launch();
    const n: Node = { metadata: { name: "worker-1" }, spec: { providerID: `aws:///us-west-2a/${i.id}` } };
    const routes = (await provider([n])).routes!;
    await routes.createRoute("kubernetes", "uid-1", route("worker-1", "10.244.2.0/24"));
    expect((await routes.listRoutes("kubernetes")).map((r) => r.targetNode)).toEqual(["worker-1"]);
  });

  // moto keeps such a route `active` (AWS: `blackhole`): the listing reads the instance's state as well.
  test("a route whose instance is terminated is listed as blackholed, and a new route for its CIDR replaces it", async () => {
    const [old, replacement] = [await cloud.launch(), await cloud.launch()];
    const routes = (await provider()).routes!;
    await routes.createRoute("kubernetes", "uid-1", route(old.privateDnsName, "10.244.3.0/24"));
    await cloud.terminate(old.id);
    expect(await routes.listRoutes("kubernetes")).toEqual([
      { name: "kubernetes-10.244.3.0/24", targetNode: "", destinationCIDR: "10.244.3.0/24", blackhole: true },
    ]);
    await routes.createRoute("kubernetes", "uid-2", route(replacement.privateDnsName, "10.244.3.0/24"));
    expect((await tableRoutes()).map((r) => r.InstanceId)).toEqual([replacement.id]);
  });

  test("a live route to an instance DescribeInstances does not answer for is left out, not taken for a blackhole", async () => {
    const i = await cloud.launch();
    await (await provider()).routes!.createRoute("kubernetes", "uid-1", route(i.privateDnsName, "10.244.7.0/24"));
    // Every DescribeInstances answered with no instance, as an eventually consistent read may be.
    const none =
      '<DescribeInstancesResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"><reservationSet/></DescribeInstancesResponse>';
    const proxy = faultProxy(cloud.endpoint, (_n, body) =>
      body.includes("Action=DescribeInstances") ? { answer: none } : "pass",
    );
    try {
      const p = awsTestProvider(cloud, { endpoint: proxy.endpoint, options: { cacheMaxAgeMs: 0 } });
      expect(await p.routes!.listRoutes("kubernetes")).toEqual([]);
      expect((await tableRoutes()).map((r) => r.InstanceId)).toEqual([i.id]);
    } finally {
      await proxy.stop();
    }
  });

  test("a CIDR already routed to a live target is not taken over", async () => {
    const [a, b] = [await cloud.launch(), await cloud.launch()];
    const routes = (await provider()).routes!;
    await routes.createRoute("kubernetes", "uid-1", route(a.privateDnsName, "10.244.4.0/24"));
    expect(
      (await rejection(routes.createRoute("kubernetes", "uid-2", route(b.privateDnsName, "10.244.4.0/24")))).message,
    ).toMatch(/already routes 10.244.4.0\/24/);
  });

  test("delete removes the route and is idempotent; gateway and local routes are never listed", async () => {
    const i = await cloud.launch();
    const routes = (await provider()).routes!;
    await routes.createRoute("kubernetes", "uid-1", route(i.privateDnsName, "10.244.5.0/24"));
    const [listed] = await routes.listRoutes("kubernetes");
    await routes.deleteRoute("kubernetes", listed!);
    await routes.deleteRoute("kubernetes", listed!);
    expect(await routes.listRoutes("kubernetes")).toEqual([]);
  });

  test("RouteTableID in the config selects an untagged table", async () => {
    const i = await cloud.launch();
    const other = (await cloud.ec2.send(new ec2.CreateRouteTableCommand({ VpcId: cloud.vpcId }))).RouteTable!
      .RouteTableId!;
    const routes = (await provider([], `RouteTableID = ${other}`)).routes!;
    await routes.createRoute("kubernetes", "uid-1", route(i.privateDnsName, "10.244.6.0/24"));
    expect((await tableRoutes(other)).map((r) => r.DestinationCidrBlock)).toEqual(["10.244.6.0/24"]);
    expect(await tableRoutes()).toEqual([]);
  });

  test("no tagged table, or two, is an error naming the problem", async () => {
    const routes = (await provider()).routes!;
    await cloud.ec2.send(
      new ec2.CreateRouteTableCommand({
        VpcId: cloud.vpcId,
        TagSpecifications: [
          { ResourceType: "route-table", Tags: [{ Key: `kubernetes.io/cluster/${cloud.clusterID}`, Value: "owned" }] },
        ],
      }),
    );
    expect((await rejection(routes.listRoutes("kubernetes"))).message).toMatch(
      /exactly one route table tagged for cluster test-cluster, but 2 are/,
    );
    const untagged = (await provider([], "RouteTableID = rtb-0000000000deadbeef")).routes!;
    expect((await rejection(untagged.listRoutes("kubernetes"))).message).toMatch(
      /rtb-0000000000deadbeef .* does not exist/,
    );
  });
});
