/** InstancesV2 against moto: lookups, answers per EC2 state, batching, the shared cache, throttling and timeouts. */
import { beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import * as ec2 from "@aws-sdk/client-ec2";
import { InstanceNotFoundError } from "../../src/cloud/errors.ts";
import type { InstancesV2, InstancesBatch } from "../../src/cloud/provider.ts";
import type { Node } from "../../src/kube/objects.ts";
import { rejection } from "../../test/harness/rejection.ts";
import { awsTestCloud, awsTestProvider, type AwsTestCloud } from "../../test/harness/aws-cloud.ts";
import { faultProxy } from "../../test/harness/aws-faults.ts";
import type { RecordedCall } from "../../test/harness/provider-context.ts";
import { AwsCallError } from "./call.ts";

// The first test of a run may install moto into the cache and start it; hooks default to 5 s.
setDefaultTimeout(180_000);

const node = (name: string, providerID?: string): Node => ({
  metadata: { name },
  spec: providerID ? { providerID } : {},
});

let cloud: AwsTestCloud;
let calls: RecordedCall[];
let instances: InstancesV2;
let batch: InstancesBatch;

beforeEach(async () => {
  cloud = await awsTestCloud();
  calls = [];
  instances = awsTestProvider(cloud, { calls, options: { cacheMaxAgeMs: 0 } }).instances!;
  batch = instances.batch!;
});

const described = (): number => calls.filter((c) => c.operation === "DescribeInstances").length;

describe("aws instances (moto)", () => {
  test("metadata of a node named by its private DNS name: providerID, type, zone, region, addresses, zone ID", async () => {
    const i = await cloud.launch({ zone: "us-west-2b", instanceType: "c5.xlarge" });
    const meta = await instances.instanceMetadata(node(i.privateDnsName));
    expect(meta).toEqual({
      providerID: `aws:///us-west-2b/${i.id}`,
      instanceType: "c5.xlarge",
      zone: "us-west-2b",
      region: "us-west-2",
      nodeAddresses: [
        { type: "InternalIP", address: i.privateIp },
        { type: "InternalDNS", address: i.privateDnsName },
        { type: "Hostname", address: i.privateDnsName },
      ],
      additionalLabels: { "topology.k8s.aws/zone-id": "usw2-az1" },
    });
  });

  test("a public IP becomes ExternalIP and the public DNS name ExternalDNS", async () => {
    const run = await cloud.ec2.send(
      new ec2.RunInstancesCommand({
        ImageId: "ami-12c6146b",
        MinCount: 1,
        MaxCount: 1,
        NetworkInterfaces: [{ DeviceIndex: 0, SubnetId: cloud.subnetIds[0], AssociatePublicIpAddress: true }],
        TagSpecifications: [
          { ResourceType: "instance", Tags: [{ Key: `kubernetes.io/cluster/${cloud.clusterID}`, Value: "owned" }] },
        ],
      }),
    );
    const id = run.Instances![0]!.InstanceId!;
    const described = (await cloud.ec2.send(new ec2.DescribeInstancesCommand({ InstanceIds: [id] }))).Reservations![0]!
      .Instances![0]!;
    const meta = await instances.instanceMetadata(node(described.PrivateDnsName!));
    expect(described.PublicIpAddress).toBeTruthy();
    expect(meta?.nodeAddresses).toContainEqual({ type: "ExternalIP", address: described.PublicIpAddress! });
    expect(meta?.nodeAddresses).toContainEqual({ type: "ExternalDNS", address: described.PublicDnsName! });
  });

  test("resource-based names (i-…, i-….<region>.compute.internal) name the instance", async () => {
    const i = await cloud.launch();
    for (const name of [i.id, `${i.id}.us-west-2.compute.internal`]) {
      expect((await instances.instanceMetadata(node(name)))?.providerID).toBe(`aws:///us-west-2a/${i.id}`);
    }
  });

  test("by name, only instances tagged for this cluster are found; by providerID any instance is", async () => {
    const i = await cloud.launch({ clusterTagged: false });
    expect(await instances.instanceExists(node(i.privateDnsName))).toBe(false);
    expect(await instances.instanceExists(node(i.privateDnsName, `aws:///us-west-2a/${i.id}`))).toBe(true);
  });

  test("exists is false only when terminated; shutdown is true only when stopped", async () => {
    const [running, stopped, terminated] = [await cloud.launch(), await cloud.launch(), await cloud.launch()];
    await cloud.stop(stopped.id);
    await cloud.terminate(terminated.id);
    const byID = (i: { id: string }) => node(`n-${i.id}`, `aws:///us-west-2a/${i.id}`);
    expect(await instances.instanceExists(byID(running))).toBe(true);
    expect(await instances.instanceShutdown(byID(running))).toBe(false);
    expect(await instances.instanceExists(byID(stopped))).toBe(true);
    expect(await instances.instanceShutdown(byID(stopped))).toBe(true);
    expect(await instances.instanceExists(byID(terminated))).toBe(false);
    expect(await instances.instanceShutdown(byID(terminated))).toBe(false);
    expect(await rejection(instances.instanceMetadata(byID(terminated)))).toBeInstanceOf(InstanceNotFoundError);
  });

  test("an unknown instance ID does not exist; a malformed providerID is an error, not an answer", async () => {
    expect(await instances.instanceExists(node("x", "aws:///us-west-2a/i-0123456789abcdef0"))).toBe(false);
    expect((await rejection(instances.instanceExists(node("x", "azure:///subscriptions/x")))).message).toMatch(
      /is not an AWS instance/,
    );
  });

  test("one batch of 105 nodes, each its own reservation, costs two DescribeInstances pages (moto pages at 100)", async () => {
    const launched = [];
    for (let n = 0; n < 105; n++) launched.push(await cloud.launch());
    await cloud.stop(launched[7]!.id);
    calls.length = 0;
    const nodes = launched.map((i) => node(i.privateDnsName));
    const states = await batch.instanceStateBatch(nodes);
    expect(described()).toBe(2);
    expect(states.filter((s) => "value" in s && s.value.exists)).toHaveLength(105);
    expect(states[7]).toEqual({ value: { exists: true, shutdown: true } });
    const metas = await batch.instanceMetadataBatch(nodes);
    expect(metas.map((m) => ("value" in m ? m.value?.providerID : m.error.message))).toEqual(
      launched.map((i) => `aws:///us-west-2a/${i.id}`),
    );
  }, 120_000);

  test("a batch mixes providerIDs, resource names and DNS names; each node gets its own answer", async () => {
    const [a, b, c] = [await cloud.launch(), await cloud.launch(), await cloud.launch()];
    await cloud.terminate(c.id);
    calls.length = 0;
    const answers = await batch.instanceMetadataBatch([
      node("a", `aws:///us-west-2a/${a.id}`),
      node(b.id),
      node(c.privateDnsName),
      node("not-an-instance"),
    ]);
    expect(described()).toBe(2);
    expect("value" in answers[0]! && answers[0].value?.providerID).toBe(`aws:///us-west-2a/${a.id}`);
    expect("value" in answers[1]! && answers[1].value?.providerID).toBe(`aws:///us-west-2a/${b.id}`);
    expect("error" in answers[2]! && answers[2].error).toBeInstanceOf(InstanceNotFoundError);
    expect("error" in answers[3]! && answers[3].error).toBeInstanceOf(InstanceNotFoundError);
  });

  test("answers are shared for a short time: node, lifecycle and route paths cost one call", async () => {
    const provider = awsTestProvider(cloud, { calls, options: { cacheMaxAgeMs: 60_000 } });
    const i = await cloud.launch();
    calls.length = 0;
    const n = node(i.privateDnsName);
    await provider.instances!.instanceMetadata(n);
    await provider.instances!.instanceExists(n);
    await provider.instances!.batch!.instanceStateBatch([n]);
    expect(described()).toBe(1);
  });
});

describe("aws instances under throttling and hangs", () => {
  test("RequestLimitExceeded is retried with backoff and reported as throttled", async () => {
    const i = await cloud.launch();
    const proxy = faultProxy(cloud.endpoint, (n) => (n < 2 ? "throttle" : "pass"));
    try {
      const throttled = awsTestProvider(cloud, {
        calls,
        endpoint: proxy.endpoint,
        options: { cacheMaxAgeMs: 0 },
      }).instances!;
      expect(await throttled.instanceExists(node(i.privateDnsName))).toBe(true);
      expect(calls.map((c) => `${c.operation}:${c.outcome}`)).toEqual([
        "DescribeInstances:throttled",
        "DescribeInstances:throttled",
        "DescribeInstances:success",
      ]);
    } finally {
      await proxy.stop();
    }
  });

  test("throttling that outlasts the retries fails the call: never 'does not exist'", async () => {
    const i = await cloud.launch();
    const proxy = faultProxy(cloud.endpoint, () => "throttle");
    try {
      const throttled = awsTestProvider(cloud, {
        calls,
        endpoint: proxy.endpoint,
        options: { cacheMaxAgeMs: 0, api: { maxAttempts: 3 } },
      }).instances!;
      const n = node(i.privateDnsName, `aws:///us-west-2a/${i.id}`);
      const failure = await throttled.instanceExists(n).catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(AwsCallError);
      expect((failure as AwsCallError).code).toBe("RequestLimitExceeded");
      expect((await rejection(throttled.batch!.instanceStateBatch([n]))).message).toMatch(/RequestLimitExceeded/);
      expect(calls.every((c) => c.outcome === "throttled")).toBe(true);
    } finally {
      await proxy.stop();
    }
  });

  test("a request that never gets an answer times out and is reported as an error", async () => {
    const proxy = faultProxy(cloud.endpoint, () => "hang");
    try {
      const hung = awsTestProvider(cloud, {
        calls,
        endpoint: proxy.endpoint,
        options: { api: { requestTimeoutMs: 300, maxAttempts: 2 } },
      }).instances!;
      expect((await rejection(hung.instanceExists(node("ip-10-0-1-9.us-west-2.compute.internal")))).message).toMatch(
        /DescribeInstances: RequestTimeout/,
      );
      expect(calls.map((c) => c.outcome)).toEqual(["error", "error"]);
    } finally {
      await proxy.stop();
    }
  });
});
