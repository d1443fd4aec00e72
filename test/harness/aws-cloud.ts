/**
 * An AWS account in moto laid out like a small cluster's: a VPC with an internet gateway, one public
 * subnet per zone (routed to the gateway), a route table tagged for the cluster for pod routes, and a node
 * security group tagged for the cluster. Tests launch, stop and terminate instances here and read back
 * what the provider did through plain SDK clients.
 */
import * as ec2 from "@aws-sdk/client-ec2";
import * as elb from "@aws-sdk/client-elastic-load-balancing";
import * as elbv2 from "@aws-sdk/client-elastic-load-balancing-v2";
import { parseAwsConfig } from "../../providers/aws/index.ts";
import { createAwsProvider, type AwsProviderOptions } from "../../providers/aws/provider.ts";
import type { CloudProvider, LoadBalancer } from "../../src/cloud/provider.ts";
import type { Node } from "../../src/kube/objects.ts";
import type { Pluggable } from "@smithy/types";
import { moto } from "./moto.ts";
import { testProviderContext, type RecordedCall } from "./provider-context.ts";

export const REGION = "us-west-2";
export const ZONES = ["us-west-2a", "us-west-2b"] as const;

export interface LaunchOptions {
  readonly zone?: (typeof ZONES)[number];
  readonly instanceType?: string;
  /** Tag the instance for the cluster (default true). */
  readonly clusterTagged?: boolean;
  readonly name?: string;
}

export interface TestInstance {
  readonly id: string;
  readonly privateDnsName: string;
  readonly privateIp: string;
  readonly zone: string;
}

export interface AwsTestCloud {
  readonly endpoint: string;
  readonly clusterID: string;
  readonly vpcId: string;
  readonly subnetIds: readonly string[];
  readonly routeTableId: string;
  readonly nodeSecurityGroup: string;
  readonly ec2: ec2.EC2Client;
  readonly elb: elb.ElasticLoadBalancingClient;
  readonly elbv2: elbv2.ElasticLoadBalancingV2Client;
  /** The `[Global]` cloud-config for this account, plus `extra` lines. */
  configText(extra?: string): string;
  /** `[ServiceOverride]` sections pointing EC2 and ELB at moto (or at `endpoint`). */
  overrides(endpoint?: string): string;
  launch(options?: LaunchOptions): Promise<TestInstance>;
  stop(id: string): Promise<void>;
  terminate(id: string): Promise<void>;
  /** Environment for a CCM process: endpoint and dummy credentials. */
  env(): Record<string, string>;
}

const tags = (pairs: Record<string, string>): ec2.Tag[] =>
  Object.entries(pairs).map(([Key, Value]) => ({ Key, Value }));

async function network(
  client: ec2.EC2Client,
  clusterTag: string,
): Promise<{ vpcId: string; subnetIds: string[]; routeTableId: string; nodeSecurityGroup: string }> {
  const vpcId = (await client.send(new ec2.CreateVpcCommand({ CidrBlock: "10.0.0.0/16" }))).Vpc!.VpcId!;
  const igw = (await client.send(new ec2.CreateInternetGatewayCommand({}))).InternetGateway!.InternetGatewayId!;
  await client.send(new ec2.AttachInternetGatewayCommand({ InternetGatewayId: igw, VpcId: vpcId }));
  const publicTable = (await client.send(new ec2.CreateRouteTableCommand({ VpcId: vpcId }))).RouteTable!.RouteTableId!;
  await client.send(
    new ec2.CreateRouteCommand({ RouteTableId: publicTable, DestinationCidrBlock: "0.0.0.0/0", GatewayId: igw }),
  );
  const subnetIds: string[] = [];
  for (const [i, zone] of ZONES.entries()) {
    const subnet = (
      await client.send(
        new ec2.CreateSubnetCommand({ VpcId: vpcId, CidrBlock: `10.0.${i + 1}.0/24`, AvailabilityZone: zone }),
      )
    ).Subnet!.SubnetId!;
    await client.send(
      new ec2.CreateTagsCommand({
        Resources: [subnet],
        Tags: tags({ [clusterTag]: "shared", "kubernetes.io/role/elb": "1" }),
      }),
    );
    await client.send(new ec2.AssociateRouteTableCommand({ RouteTableId: publicTable, SubnetId: subnet }));
    subnetIds.push(subnet);
  }
  const routeTableId = (
    await client.send(
      new ec2.CreateRouteTableCommand({
        VpcId: vpcId,
        TagSpecifications: [{ ResourceType: "route-table", Tags: tags({ [clusterTag]: "owned" }) }],
      }),
    )
  ).RouteTable!.RouteTableId!;
  const nodeSecurityGroup = (
    await client.send(
      new ec2.CreateSecurityGroupCommand({
        GroupName: "nodes",
        Description: "cluster nodes",
        VpcId: vpcId,
        TagSpecifications: [{ ResourceType: "security-group", Tags: tags({ [clusterTag]: "owned" }) }],
      }),
    )
  ).GroupId!;
  return { vpcId, subnetIds, routeTableId, nodeSecurityGroup };
}

/** A client plugin sending moto's account header, so the test's own clients work in another account. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function motoAccount(account: string): Pluggable<any, any> {
  type Args = { request: { headers?: Record<string, string> } };
  const middleware = (next: (args: Args) => Promise<unknown>) => (args: Args) => {
    if (args.request.headers) args.request.headers["x-moto-account-id"] = account;
    return next(args);
  };
  return { applyToStack: (stack) => stack.add(middleware as never, { step: "build" }) };
}

/**
 * Resets moto and lays out a fresh account for `clusterID`: moto's default account (123456789012), or
 * `account` (what a manager reaches through `RoleARN = arn:aws:iam::<account>:role/…`).
 */
export async function awsTestCloud(clusterID = "test-cluster", account?: string): Promise<AwsTestCloud> {
  const server = await moto();
  await server.reset();
  const config = {
    region: REGION,
    endpoint: server.endpoint,
    credentials: { accessKeyId: "testing", secretAccessKey: "testing" },
  };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const withAccount = <C extends { middlewareStack: { use: (p: Pluggable<any, any>) => void } }>(c: C): C => {
    if (account) c.middlewareStack.use(motoAccount(account));
    return c;
  };
  const client = withAccount(new ec2.EC2Client(config));
  const elbClient = withAccount(new elb.ElasticLoadBalancingClient(config));
  const clusterTag = `kubernetes.io/cluster/${clusterID}`;
  const net = await network(client, clusterTag);
  return {
    endpoint: server.endpoint,
    clusterID,
    ...net,
    ec2: client,
    elb: elbClient,
    elbv2: withAccount(new elbv2.ElasticLoadBalancingV2Client(config)),
    configText: (extra = "") => `[Global]\nRegion = ${REGION}\nKubernetesClusterID = ${clusterID}\n${extra}\n`,
    overrides: (endpoint = server.endpoint) =>
      ["ec2", "elasticloadbalancing", "elasticloadbalancingv2"]
        .map(
          (service, i) =>
            `[ServiceOverride "${i + 1}"]\nService = ${service}\nRegion = ${REGION}\nURL = ${endpoint}\nSigningRegion = ${REGION}\n`,
        )
        .join("\n"),
    async launch(o = {}) {
      const zone = o.zone ?? ZONES[0];
      const instanceTags = {
        ...(o.clusterTagged === false ? {} : { [clusterTag]: "owned" }),
        ...(o.name ? { Name: o.name } : {}),
      };
      const run = await client.send(
        new ec2.RunInstancesCommand({
          ImageId: "ami-12c6146b",
          MinCount: 1,
          MaxCount: 1,
          InstanceType: (o.instanceType ?? "m5.large") as ec2._InstanceType,
          SubnetId: net.subnetIds[ZONES.indexOf(zone)],
          SecurityGroupIds: [net.nodeSecurityGroup],
          ...(Object.keys(instanceTags).length > 0
            ? { TagSpecifications: [{ ResourceType: "instance", Tags: tags(instanceTags) }] }
            : {}),
        }),
      );
      const i = run.Instances![0]!;
      return { id: i.InstanceId!, privateDnsName: i.PrivateDnsName!, privateIp: i.PrivateIpAddress!, zone };
    },
    async stop(id) {
      await client.send(new ec2.StopInstancesCommand({ InstanceIds: [id] }));
    },
    async terminate(id) {
      await client.send(new ec2.TerminateInstancesCommand({ InstanceIds: [id] }));
    },
    env: () => ({
      AWS_ENDPOINT_URL: server.endpoint,
      AWS_ACCESS_KEY_ID: "testing",
      AWS_SECRET_ACCESS_KEY: "testing",
      AWS_REGION: REGION,
      AWS_EC2_METADATA_DISABLED: "true",
    }),
  };
}

export interface TestProviderOptions {
  /** Extra `[Global]` lines. */
  readonly extra?: string;
  readonly calls?: RecordedCall[];
  readonly lines?: string[];
  readonly options?: AwsProviderOptions;
  /** Talk to this endpoint instead of moto (a fault proxy in front of it). */
  readonly endpoint?: string;
}

/** The provider under test, configured for `cloud` through the cloud-config text (endpoint overrides included). */
export function awsTestProvider(cloud: AwsTestCloud, o: TestProviderOptions = {}): CloudProvider {
  const parsed = parseAwsConfig(`${cloud.configText(o.extra)}\n${cloud.overrides(o.endpoint)}`);
  if (!parsed.ok) throw new Error(`bad test cloud config: ${parsed.errors.join("; ")}`);
  const options: AwsProviderOptions = {
    ...o.options,
    api: {
      credentials: { accessKeyId: "testing", secretAccessKey: "testing" },
      requestTimeoutMs: 10_000,
      backoffMs: 20,
      ...o.options?.api,
    },
  };
  return createAwsProvider(parsed.config, testProviderContext(o.calls, o.lines), options);
}

export interface LoadBalancerBed {
  readonly cloud: AwsTestCloud;
  readonly lb: LoadBalancer;
  /** One running instance per zone, and the Nodes (with providerIDs) they back. */
  readonly launched: TestInstance[];
  readonly nodes: Node[];
}

/** A fresh account with two backends in two zones and the provider's LoadBalancer over it. */
export async function loadBalancerBed(): Promise<LoadBalancerBed> {
  const cloud = await awsTestCloud();
  const lb = awsTestProvider(cloud, { options: { cacheMaxAgeMs: 0 } }).loadBalancer!;
  const launched = [await cloud.launch({ zone: "us-west-2a" }), await cloud.launch({ zone: "us-west-2b" })];
  const nodes = launched.map((i): Node => ({
    metadata: { name: i.privateDnsName, labels: {} },
    spec: { providerID: `aws:///${i.zone}/${i.id}` },
  }));
  return { cloud, lb, launched, nodes };
}
