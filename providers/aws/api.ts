/**
 * The AWS provider's only way to the cloud. Builds the SDK clients once (region, endpoint overrides,
 * default credential chain, HTTP timeouts) and runs every call through the retry loop of call.ts. The
 * SDK's own retry is switched off (`maxAttempts: 1`) so that loop sees and reports every attempt.
 */
import * as ec2 from "@aws-sdk/client-ec2";
import * as elb from "@aws-sdk/client-elastic-load-balancing";
import * as elbv2 from "@aws-sdk/client-elastic-load-balancing-v2";
import type { ProviderContext } from "../../src/cloud/provider.ts";
import { createCaller, type CallOptions } from "./call.ts";
import type { AssumeRole } from "./config.ts";
import { roleCredentials, type Credentials } from "./credentials.ts";
import { overrideFor, type OverridableService, type ServiceOverride } from "./service-overrides.ts";

export interface AwsApiOptions extends CallOptions {
  /** Empty: the SDK's region chain (AWS_REGION, shared config). */
  readonly region: string;
  readonly overrides: readonly ServiceOverride[];
  /** Fixed credentials instead of the SDK's default chain (tests); with `assumeRole`, the caller's. */
  readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string };
  readonly assumeRole?: AssumeRole;
}

/**
 * Endpoint and region of one client. An override's URL replaces the endpoint, and its signing region
 * becomes the client's region: with an explicit endpoint the region only scopes the signature.
 */
function clientConfig(
  options: AwsApiOptions,
  service: OverridableService,
  credentials: Credentials | undefined,
): Record<string, unknown> {
  const timeout = options.requestTimeoutMs ?? 30_000;
  const match = overrideFor(options.overrides, service, options.region);
  const region = match?.signingRegion || options.region || undefined;
  return {
    ...(match ? { endpoint: match.url } : {}),
    ...(match?.signingName ? { signingName: match.signingName } : {}),
    ...(region ? { region } : {}),
    ...(credentials ? { credentials } : {}),
    maxAttempts: 1,
    requestHandler: { requestTimeout: timeout, connectionTimeout: Math.min(timeout, 10_000) },
  };
}

function credentialsFor(options: AwsApiOptions): Credentials | undefined {
  const sts = overrideFor(options.overrides, "sts", options.region);
  return roleCredentials(options.assumeRole, options.credentials, {
    region: options.region || undefined,
    endpoint: sts?.url,
    signingRegion: sts?.signingRegion,
    requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
  });
}

// The return type is the operation table below, spelled once; `AwsApi` names it.
// eslint-disable-next-line @typescript-eslint/explicit-function-return-type
export function createAwsApi(options: AwsApiOptions, context: ProviderContext) {
  const credentials = credentialsFor(options);
  const ec2Client = new ec2.EC2Client(clientConfig(options, "ec2", credentials));
  const elbClient = new elb.ElasticLoadBalancingClient(clientConfig(options, "elb", credentials));
  const v2 = new elbv2.ElasticLoadBalancingV2Client(clientConfig(options, "elbv2", credentials));
  const op = createCaller(options, context);

  return {
    /** The region calls are signed for (configured, override or SDK chain). */
    region: async (): Promise<string> => ec2Client.config.region(),
    close(): void {
      ec2Client.destroy();
      elbClient.destroy();
      v2.destroy();
    },
    ec2: {
      describeInstances: op("DescribeInstances", (i: ec2.DescribeInstancesCommandInput, o) =>
        ec2Client.send(new ec2.DescribeInstancesCommand(i), o),
      ),
      describeAvailabilityZones: op("DescribeAvailabilityZones", (i: ec2.DescribeAvailabilityZonesCommandInput, o) =>
        ec2Client.send(new ec2.DescribeAvailabilityZonesCommand(i), o),
      ),
      describeRouteTables: op("DescribeRouteTables", (i: ec2.DescribeRouteTablesCommandInput, o) =>
        ec2Client.send(new ec2.DescribeRouteTablesCommand(i), o),
      ),
      createRoute: op("CreateRoute", (i: ec2.CreateRouteCommandInput, o) =>
        ec2Client.send(new ec2.CreateRouteCommand(i), o),
      ),
      deleteRoute: op("DeleteRoute", (i: ec2.DeleteRouteCommandInput, o) =>
        ec2Client.send(new ec2.DeleteRouteCommand(i), o),
      ),
      modifyInstanceAttribute: op("ModifyInstanceAttribute", (i: ec2.ModifyInstanceAttributeCommandInput, o) =>
        ec2Client.send(new ec2.ModifyInstanceAttributeCommand(i), o),
      ),
      describeSubnets: op("DescribeSubnets", (i: ec2.DescribeSubnetsCommandInput, o) =>
        ec2Client.send(new ec2.DescribeSubnetsCommand(i), o),
      ),
      describeSecurityGroups: op("DescribeSecurityGroups", (i: ec2.DescribeSecurityGroupsCommandInput, o) =>
        ec2Client.send(new ec2.DescribeSecurityGroupsCommand(i), o),
      ),
      createSecurityGroup: op("CreateSecurityGroup", (i: ec2.CreateSecurityGroupCommandInput, o) =>
        ec2Client.send(new ec2.CreateSecurityGroupCommand(i), o),
      ),
      deleteSecurityGroup: op("DeleteSecurityGroup", (i: ec2.DeleteSecurityGroupCommandInput, o) =>
        ec2Client.send(new ec2.DeleteSecurityGroupCommand(i), o),
      ),
      authorizeSecurityGroupIngress: op(
        "AuthorizeSecurityGroupIngress",
        (i: ec2.AuthorizeSecurityGroupIngressCommandInput, o) =>
          ec2Client.send(new ec2.AuthorizeSecurityGroupIngressCommand(i), o),
      ),
      revokeSecurityGroupIngress: op("RevokeSecurityGroupIngress", (i: ec2.RevokeSecurityGroupIngressCommandInput, o) =>
        ec2Client.send(new ec2.RevokeSecurityGroupIngressCommand(i), o),
      ),
    },
    elb: {
      describeLoadBalancers: op("DescribeLoadBalancers", (i: elb.DescribeAccessPointsInput, o) =>
        elbClient.send(new elb.DescribeLoadBalancersCommand(i), o),
      ),
      createLoadBalancer: op("CreateLoadBalancer", (i: elb.CreateAccessPointInput, o) =>
        elbClient.send(new elb.CreateLoadBalancerCommand(i), o),
      ),
      deleteLoadBalancer: op("DeleteLoadBalancer", (i: elb.DeleteAccessPointInput, o) =>
        elbClient.send(new elb.DeleteLoadBalancerCommand(i), o),
      ),
      createLoadBalancerListeners: op("CreateLoadBalancerListeners", (i: elb.CreateLoadBalancerListenerInput, o) =>
        elbClient.send(new elb.CreateLoadBalancerListenersCommand(i), o),
      ),
      deleteLoadBalancerListeners: op("DeleteLoadBalancerListeners", (i: elb.DeleteLoadBalancerListenerInput, o) =>
        elbClient.send(new elb.DeleteLoadBalancerListenersCommand(i), o),
      ),
      attachLoadBalancerToSubnets: op("AttachLoadBalancerToSubnets", (i: elb.AttachLoadBalancerToSubnetsInput, o) =>
        elbClient.send(new elb.AttachLoadBalancerToSubnetsCommand(i), o),
      ),
      detachLoadBalancerFromSubnets: op(
        "DetachLoadBalancerFromSubnets",
        (i: elb.DetachLoadBalancerFromSubnetsInput, o) =>
          elbClient.send(new elb.DetachLoadBalancerFromSubnetsCommand(i), o),
      ),
      applySecurityGroupsToLoadBalancer: op(
        "ApplySecurityGroupsToLoadBalancer",
        (i: elb.ApplySecurityGroupsToLoadBalancerInput, o) =>
          elbClient.send(new elb.ApplySecurityGroupsToLoadBalancerCommand(i), o),
      ),
      configureHealthCheck: op("ConfigureHealthCheck", (i: elb.ConfigureHealthCheckInput, o) =>
        elbClient.send(new elb.ConfigureHealthCheckCommand(i), o),
      ),
      describeLoadBalancerAttributes: op(
        "DescribeLoadBalancerAttributes",
        (i: elb.DescribeLoadBalancerAttributesInput, o) =>
          elbClient.send(new elb.DescribeLoadBalancerAttributesCommand(i), o),
      ),
      modifyLoadBalancerAttributes: op("ModifyLoadBalancerAttributes", (i: elb.ModifyLoadBalancerAttributesInput, o) =>
        elbClient.send(new elb.ModifyLoadBalancerAttributesCommand(i), o),
      ),
      registerInstances: op("RegisterInstancesWithLoadBalancer", (i: elb.RegisterEndPointsInput, o) =>
        elbClient.send(new elb.RegisterInstancesWithLoadBalancerCommand(i), o),
      ),
      deregisterInstances: op("DeregisterInstancesFromLoadBalancer", (i: elb.DeregisterEndPointsInput, o) =>
        elbClient.send(new elb.DeregisterInstancesFromLoadBalancerCommand(i), o),
      ),
      describeLoadBalancerPolicies: op("DescribeLoadBalancerPolicies", (i: elb.DescribeLoadBalancerPoliciesInput, o) =>
        elbClient.send(new elb.DescribeLoadBalancerPoliciesCommand(i), o),
      ),
      createLoadBalancerPolicy: op("CreateLoadBalancerPolicy", (i: elb.CreateLoadBalancerPolicyInput, o) =>
        elbClient.send(new elb.CreateLoadBalancerPolicyCommand(i), o),
      ),
      setLoadBalancerPoliciesOfListener: op(
        "SetLoadBalancerPoliciesOfListener",
        (i: elb.SetLoadBalancerPoliciesOfListenerInput, o) =>
          elbClient.send(new elb.SetLoadBalancerPoliciesOfListenerCommand(i), o),
      ),
      setLoadBalancerPoliciesForBackendServer: op(
        "SetLoadBalancerPoliciesForBackendServer",
        (i: elb.SetLoadBalancerPoliciesForBackendServerInput, o) =>
          elbClient.send(new elb.SetLoadBalancerPoliciesForBackendServerCommand(i), o),
      ),
      addTags: op("AddTags", (i: elb.AddTagsInput, o) => elbClient.send(new elb.AddTagsCommand(i), o)),
      describeTags: op("DescribeTags", (i: elb.DescribeTagsInput, o) =>
        elbClient.send(new elb.DescribeTagsCommand(i), o),
      ),
    },
    elbv2: {
      describeLoadBalancers: op("DescribeLoadBalancersV2", (i: elbv2.DescribeLoadBalancersInput, o) =>
        v2.send(new elbv2.DescribeLoadBalancersCommand(i), o),
      ),
      createLoadBalancer: op("CreateLoadBalancerV2", (i: elbv2.CreateLoadBalancerInput, o) =>
        v2.send(new elbv2.CreateLoadBalancerCommand(i), o),
      ),
      deleteLoadBalancer: op("DeleteLoadBalancerV2", (i: elbv2.DeleteLoadBalancerInput, o) =>
        v2.send(new elbv2.DeleteLoadBalancerCommand(i), o),
      ),
      describeTargetGroups: op("DescribeTargetGroups", (i: elbv2.DescribeTargetGroupsInput, o) =>
        v2.send(new elbv2.DescribeTargetGroupsCommand(i), o),
      ),
      createTargetGroup: op("CreateTargetGroup", (i: elbv2.CreateTargetGroupInput, o) =>
        v2.send(new elbv2.CreateTargetGroupCommand(i), o),
      ),
      modifyTargetGroup: op("ModifyTargetGroup", (i: elbv2.ModifyTargetGroupInput, o) =>
        v2.send(new elbv2.ModifyTargetGroupCommand(i), o),
      ),
      deleteTargetGroup: op("DeleteTargetGroup", (i: elbv2.DeleteTargetGroupInput, o) =>
        v2.send(new elbv2.DeleteTargetGroupCommand(i), o),
      ),
      describeTags: op("DescribeTagsV2", (i: elbv2.DescribeTagsInput, o) =>
        v2.send(new elbv2.DescribeTagsCommand(i), o),
      ),
      describeListeners: op("DescribeListeners", (i: elbv2.DescribeListenersInput, o) =>
        v2.send(new elbv2.DescribeListenersCommand(i), o),
      ),
      createListener: op("CreateListener", (i: elbv2.CreateListenerInput, o) =>
        v2.send(new elbv2.CreateListenerCommand(i), o),
      ),
      modifyListener: op("ModifyListener", (i: elbv2.ModifyListenerInput, o) =>
        v2.send(new elbv2.ModifyListenerCommand(i), o),
      ),
      deleteListener: op("DeleteListener", (i: elbv2.DeleteListenerInput, o) =>
        v2.send(new elbv2.DeleteListenerCommand(i), o),
      ),
      describeTargetHealth: op("DescribeTargetHealth", (i: elbv2.DescribeTargetHealthInput, o) =>
        v2.send(new elbv2.DescribeTargetHealthCommand(i), o),
      ),
      registerTargets: op("RegisterTargets", (i: elbv2.RegisterTargetsInput, o) =>
        v2.send(new elbv2.RegisterTargetsCommand(i), o),
      ),
      deregisterTargets: op("DeregisterTargets", (i: elbv2.DeregisterTargetsInput, o) =>
        v2.send(new elbv2.DeregisterTargetsCommand(i), o),
      ),
      setSecurityGroups: op("SetSecurityGroups", (i: elbv2.SetSecurityGroupsInput, o) =>
        v2.send(new elbv2.SetSecurityGroupsCommand(i), o),
      ),
      describeTargetGroupAttributes: op(
        "DescribeTargetGroupAttributes",
        (i: elbv2.DescribeTargetGroupAttributesInput, o) =>
          v2.send(new elbv2.DescribeTargetGroupAttributesCommand(i), o),
      ),
      modifyTargetGroupAttributes: op("ModifyTargetGroupAttributes", (i: elbv2.ModifyTargetGroupAttributesInput, o) =>
        v2.send(new elbv2.ModifyTargetGroupAttributesCommand(i), o),
      ),
      describeLoadBalancerAttributes: op(
        "DescribeLoadBalancerAttributesV2",
        (i: elbv2.DescribeLoadBalancerAttributesInput, o) =>
          v2.send(new elbv2.DescribeLoadBalancerAttributesCommand(i), o),
      ),
      modifyLoadBalancerAttributes: op(
        "ModifyLoadBalancerAttributesV2",
        (i: elbv2.ModifyLoadBalancerAttributesInput, o) => v2.send(new elbv2.ModifyLoadBalancerAttributesCommand(i), o),
      ),
    },
  };
}

export type AwsApi = ReturnType<typeof createAwsApi>;
