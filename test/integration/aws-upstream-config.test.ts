/**
 * An upstream cloud-provider-aws cloud-config, field by field as upstream documents it (empty values
 * included), with a cross-account `RoleARN` and private endpoints for ec2, elasticloadbalancing and sts
 * only: the manager assumes the role through moto's STS, so it works in the role's account (moto keeps
 * accounts apart), initialises a node there and creates and deletes a classic ELB and an NLB through the
 * one `elasticloadbalancing` endpoint. No AWS_ENDPOINT_URL is set: every call goes where the config says.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as elb from "@aws-sdk/client-elastic-load-balancing";
import * as elbv2 from "@aws-sdk/client-elastic-load-balancing-v2";
import { NAMESPACES, NODES, SERVICES } from "../../src/kube/api.ts";
import type { Node, Service } from "../../src/kube/objects.ts";
import { isNotFound } from "../../src/kube/transport.ts";
import { TAINT_UNINITIALIZED } from "../../src/kube/well-known.ts";
import { awsTestCloud, REGION, type AwsTestCloud } from "../harness/aws-cloud.ts";
import { startCcm, type CcmProcess, managerFlags } from "../harness/ccm.ts";
import { controlPlane } from "../harness/control-plane.ts";
import { kubeletNode, loadBalancerService, readyCondition, uniqueName } from "../harness/fixtures.ts";
import { eventually } from "../harness/wait.ts";

setDefaultTimeout(180_000);

const ACCOUNT = "210987654321";
const lbName = (svc: Service): string => `a${(svc.metadata.uid ?? "").replaceAll("-", "")}`.slice(0, 32);

/** Upstream's `CloudConfig` fields in upstream's order, as a generated config writes them. */
function upstreamConfig(cloud: AwsTestCloud): string {
  const override = (name: string, service: string): string =>
    `[ServiceOverride "${name}"]\nService = ${service}\nRegion = ${REGION}\nURL = ${cloud.endpoint}\nSigningRegion = ${REGION}\nSigningMethod = \nSigningName = \n`;
  return [
    "[Global]",
    "Zone = ",
    `Region = ${REGION}`,
    `VPC = ${cloud.vpcId}`,
    "SubnetID = ",
    `RouteTableID = ${cloud.routeTableId}`,
    `RoleARN = arn:aws:iam::${ACCOUNT}:role/cloud-controller-manager`,
    "SourceARN = ",
    "KubernetesClusterTag = ",
    `KubernetesClusterID = ${cloud.clusterID}`,
    "DisableSecurityGroupIngress = false",
    "ElbSecurityGroup = ",
    "NodeIPFamilies = ipv4",
    "ClusterServiceLoadBalancerHealthProbeMode = ",
    "ClusterServiceSharedLoadBalancerHealthProbePort = ",
    "ClusterServiceSharedLoadBalancerHealthProbePath = ",
    "SupportedTopologyInstanceTypePattern = ",
    "NLBSecurityGroupMode = ",
    "",
    override("ec2", "ec2"),
    override("elb", "elasticloadbalancing"),
    override("sts", "sts"),
  ].join("\n");
}

describe("aws provider from an upstream cloud-config with RoleARN and private endpoints (real kube-apiserver, moto)", () => {
  let cloud: AwsTestCloud;
  let ccm: CcmProcess;
  const admin = async () => (await controlPlane()).admin;
  /** Nodes this file registers: moto hands the role's account the same private addresses as other accounts. */
  const registered: string[] = [];

  beforeAll(async () => {
    cloud = await awsTestCloud(uniqueName("xacct"), ACCOUNT);
    await cloud.launch();
    const cp = await controlPlane();
    const configFile = join(mkdtempSync(join(tmpdir(), "ccm-aws-upstream-")), "cloud.conf");
    writeFileSync(configFile, upstreamConfig(cloud));
    ccm = startCcm({
      cleanEnv: true,
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: tmpdir(),
        AWS_ACCESS_KEY_ID: "caller",
        AWS_SECRET_ACCESS_KEY: "caller",
        AWS_EC2_METADATA_DISABLED: "true",
      },
      args: [
        ...managerFlags(cp.kubeconfigs.ccm, "aws", configFile),
        "--configure-cloud-routes=false",
        "--node-monitor-period=1s",
      ],
    });
  }, 300_000);

  afterAll(async () => {
    await ccm?.stop();
    const api = await admin();
    for (const name of registered) {
      await api.delete(NODES, name).catch((e: unknown) => {
        if (!isNotFound(e)) throw e;
      });
    }
  });

  test("the start-up line shows the role's account: its instance, its route table, both load-balancer APIs", async () => {
    const line = await ccm.waitForLine(/aws: region|aws: cannot reach/, 60_000);
    expect(line).toContain(
      `aws: region ${REGION}, cluster tag kubernetes.io/cluster/${cloud.clusterID}: 1 instance(s), `,
    );
    expect(line).toContain(`route table ${cloud.routeTableId}; ELB reachable, ELBv2 reachable`);
  }, 120_000);

  test("a node, a classic ELB and an NLB in the role's account; both load balancers deleted with their Services", async () => {
    const api = await admin();
    const instance = await cloud.launch({ zone: "us-west-2b" });
    await api.create(NODES, kubeletNode(instance.privateDnsName, { nodeIP: instance.privateIp }));
    registered.push(instance.privateDnsName);
    await api.patch(
      NODES,
      instance.privateDnsName,
      { status: { conditions: [readyCondition(true)] } },
      { type: "strategic", subresource: "status" },
    );
    const node = await eventually(
      "node initialised",
      async () => {
        const n = await api.get<Node>(NODES, instance.privateDnsName);
        return n.spec?.providerID && !(n.spec.taints ?? []).some((t) => t.key === TAINT_UNINITIALIZED) ? n : undefined;
      },
      60_000,
    );
    expect(node.spec?.providerID).toBe(`aws:///us-west-2b/${instance.id}`);

    const namespace = uniqueName("aws-upstream");
    await api.create(NAMESPACES, { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
    const ports = [{ name: "tcp", protocol: "TCP" as const, port: 80, targetPort: 8080 }];
    const classic = await api.create<Service>(SERVICES, loadBalancerService("classic", namespace, { ports }), {
      namespace,
    });
    const nlb = await api.create<Service>(
      SERVICES,
      loadBalancerService("nlb", namespace, {
        ports,
        annotations: { "service.beta.kubernetes.io/aws-load-balancer-type": "nlb" },
      }),
      { namespace },
    );
    for (const name of ["classic", "nlb"]) {
      await eventually(
        `${name} ingress`,
        async () =>
          (await api.get<Service>(SERVICES, name, { namespace })).status?.loadBalancer?.ingress?.[0]?.hostname
            ? true
            : undefined,
        90_000,
      );
    }
    const elbs = await cloud.elb.send(new elb.DescribeLoadBalancersCommand({ LoadBalancerNames: [lbName(classic)] }));
    expect(elbs.LoadBalancerDescriptions?.[0]?.Instances?.map((i) => i.InstanceId)).toContain(instance.id);
    const nlbs = await cloud.elbv2.send(new elbv2.DescribeLoadBalancersCommand({ Names: [lbName(nlb)] }));
    expect(nlbs.LoadBalancers?.[0]?.Type).toBe("network");

    await api.delete(SERVICES, "classic", { namespace });
    await api.delete(SERVICES, "nlb", { namespace });
    for (const name of ["classic", "nlb"]) {
      await eventually(
        `${name} Service gone after its finalizer`,
        () =>
          api.get(SERVICES, name, { namespace }).then(
            () => false,
            (e: unknown) => isNotFound(e),
          ),
        90_000,
      );
    }
    const gone = await cloud.elb
      .send(new elb.DescribeLoadBalancersCommand({ LoadBalancerNames: [lbName(classic)] }))
      .catch((e: Error) => e);
    expect(gone).toHaveProperty("name", "AccessPointNotFoundException");
    const goneV2 = await cloud.elbv2
      .send(new elbv2.DescribeLoadBalancersCommand({ Names: [lbName(nlb)] }))
      .catch((e: Error) => e);
    expect(goneV2).toHaveProperty("name", "LoadBalancerNotFoundException");
    expect(ccm.output()).not.toMatch(/ENOTFOUND|getaddrinfo/);
  }, 300_000);
});
