import { describe, expect, test } from "bun:test";
import { parseAwsConfig } from "./config.ts";
import { parseIni } from "./ini.ts";
import { overrideFor } from "./service-overrides.ts";

const ok = (text: string) => {
  const parsed = parseAwsConfig(text);
  if (!parsed.ok) throw new Error(parsed.errors.join("\n"));
  return parsed.config;
};
const ROLE = "arn:aws:iam::111122223333:role/ccm";
const ovr = (name: string, service: string): string =>
  `[ServiceOverride "${name}"]\nService = ${service}\nRegion = us-east-1\nURL = http://127.0.0.1:5000\nSigningRegion = us-east-1\n`;
const errors = (text: string | undefined): string[] => {
  const parsed = parseAwsConfig(text);
  return parsed.ok ? [] : parsed.errors;
};

describe("gcfg INI", () => {
  test.each([
    ["quoted values keep ; and # and unescape", '[Global]\nVPC = "vpc-1;#x\\"y"', 'vpc-1;#x"y'],
    ["comments after values are dropped", "[Global]\nVPC = vpc-1 ; the vpc", "vpc-1"],
    ["a bare key means true", "[Global]\nDisableSecurityGroupIngress", "true"],
  ])("%s", (_title, text, value) => {
    const ini = parseIni(text);
    expect(ini.ok && ini.entries[0]?.value).toBe(value);
  });

  test("section names are case-insensitive, subsections keep their case", () => {
    const ini = parseIni('[serviceOVERRIDE "Ec2"]\nservice = ec2');
    expect(ini.ok && ini.entries[0]).toMatchObject({ section: "serviceoverride", subsection: "Ec2", key: "service" });
  });

  test.each([
    ["a key before any section", "VPC = x", /before any \[section\]/],
    ["an unterminated quote", '[Global]\nVPC = "x', /unterminated quote/],
    ["garbage", "[Global]\n= x", /cannot parse/],
  ])("rejects %s", (_title, text, message) => {
    const ini = parseIni(text);
    expect(ini.ok).toBe(false);
    expect(!ini.ok && ini.errors[0]).toMatch(message);
  });
});

describe("AWS cloud config", () => {
  test("the upstream [Global] keys, case-insensitive", () => {
    const config = ok(`[Global]
zone = us-west-2b
VPC = vpc-0abc
SubnetID = subnet-0abc
RouteTableID = rtb-0abc
KubernetesClusterTag = prod
KubernetesClusterID = prod
DisableSecurityGroupIngress = true
ElbSecurityGroup = sg-0abc
NodeIPFamilies = ipv6
NodeIPFamilies = ipv4
ClusterServiceLoadBalancerHealthProbeMode = Shared
ClusterServiceSharedLoadBalancerHealthProbePort = 10257
`);
    expect(config).toMatchObject({
      region: "us-west-2",
      zone: "us-west-2b",
      vpc: "vpc-0abc",
      subnetID: "subnet-0abc",
      routeTableID: "rtb-0abc",
      clusterID: "prod",
      legacyClusterTag: true,
      disableSecurityGroupIngress: true,
      elbSecurityGroup: "sg-0abc",
      nodeIPFamilies: ["ipv6", "ipv4"],
      healthProbe: { shared: true, port: 10257, path: "/healthz" },
      overrides: [],
    });
  });

  test("defaults: ipv4 addresses, security group ingress managed, no legacy tag, region from the SDK chain", () => {
    expect(ok("[Global]\nKubernetesClusterID = c1")).toMatchObject({
      region: "",
      nodeIPFamilies: ["ipv4"],
      disableSecurityGroupIngress: false,
      legacyClusterTag: false,
      healthProbe: { shared: false },
    });
  });

  test("service overrides become endpoints for EC2 and ELB", () => {
    const config = ok(`[Global]
Region = eu-west-1
KubernetesClusterID = c1
[ServiceOverride "1"]
Service = ec2
Region = eu-west-1
URL = https://ec2.vpce.example
SigningRegion = eu-west-1
[ServiceOverride "2"]
Service = elasticloadbalancing
Region = eu-west-1
URL = http://127.0.0.1:5000
`);
    expect(config.overrides).toEqual([
      {
        service: "ec2",
        region: "eu-west-1",
        url: "https://ec2.vpce.example",
        signingRegion: "eu-west-1",
        signingName: "",
      },
      {
        service: "elb",
        region: "eu-west-1",
        url: "http://127.0.0.1:5000",
        signingRegion: "eu-west-1",
        signingName: "",
      },
    ]);
  });

  test.each([
    ["no cluster ID", "[Global]\nRegion = us-east-1", /KubernetesClusterID: required/],
    ["no file at all", undefined, /KubernetesClusterID: required/],
    ["an unknown key", "[Global]\nKubernetesClusterID = c\nVCP = vpc-1", /\[Global\] VCP: unknown key/],
    ["an unknown section", "[Global]\nKubernetesClusterID = c\n[Globel]\nx = 1", /unknown section \[globel\]/],
    ["a malformed VPC", "[Global]\nKubernetesClusterID = c\nVPC = my-vpc", /VPC: "my-vpc" is not a VPC ID/],
    ["a malformed zone", "[Global]\nKubernetesClusterID = c\nZone = west", /Zone: "west" is not an availability zone/],
    [
      "a zone outside the region",
      "[Global]\nKubernetesClusterID = c\nZone = us-east-1a\nRegion = us-west-2",
      /not in Region/,
    ],
    ["different cluster IDs", "[Global]\nKubernetesClusterID = a\nKubernetesClusterTag = b", /must be equal/],
    ["a bad boolean", "[Global]\nKubernetesClusterID = c\nDisableSecurityGroupIngress = maybe", /is not true or false/],
    ["a key given twice", "[Global]\nKubernetesClusterID = c\nVPC = vpc-1\nVPC = vpc-2", /vpc: given 2 times/],
    [
      "a malformed RoleARN",
      "[Global]\nKubernetesClusterID = c\nRoleARN = arn:aws:iam::1:role/x",
      /RoleARN: "arn:aws:iam::1:role\/x" is not an IAM role ARN/,
    ],
    ["a bad family", "[Global]\nKubernetesClusterID = c\nNodeIPFamilies = ipv5", /NodeIPFamilies: "ipv5"/],
    [
      "an override for an unknown service",
      '[Global]\nKubernetesClusterID = c\n[ServiceOverride "1"]\nService = ec3\nRegion = us-east-1\nURL = http://x',
      /Service: "ec3" is not ec2, elasticloadbalancing, elasticloadbalancingv2 or sts/,
    ],
    [
      "an override without URL",
      '[Global]\nKubernetesClusterID = c\n[ServiceOverride "1"]\nService = ec2\nRegion = us-east-1',
      /URL: "" is not an http/,
    ],
    [
      "a malformed signing region",
      '[Global]\nKubernetesClusterID = c\n[ServiceOverride "1"]\nService = ec2\nRegion = us-east-1\nURL = http://x\nSigningRegion = west',
      /SigningRegion: "west" is not a region/,
    ],
    [
      "a second override of one service",
      `[Global]\nKubernetesClusterID = c\n${ovr("1", "ec2")}${ovr("2", "ec2")}${ovr("3", "elasticloadbalancing")}`,
      /a second override for ec2 in us-east-1/,
    ],
    [
      "overrides that leave ELB public",
      `[Global]\nKubernetesClusterID = c\nRegion = us-east-1\n${ovr("1", "ec2")}`,
      /no override for elasticloadbalancing in us-east-1: with private endpoints configured/,
    ],
    [
      "overrides that leave STS public with RoleARN",
      `[Global]\nKubernetesClusterID = c\nRoleARN = ${ROLE}\n${ovr("1", "ec2")}${ovr("2", "elasticloadbalancing")}`,
      /no override for sts/,
    ],
    [
      "a broken section header",
      '[Global]\nKubernetesClusterID = c\n[ServiceOverride "1"\nService = ec2\nRegion = us-east-1',
      /line 3: malformed section header/,
    ],
  ])("rejects %s", (_title, text, message) => {
    expect(errors(text).join("\n")).toMatch(message);
  });

  test("a broken section header is one error, not one per key after it", () => {
    expect(
      errors(
        '[Global]\nKubernetesClusterID = c\n[ServiceOverride "1"\nService = ec2\nRegion = us-east-1\nURL = http://x\n[Global]\nVPC = vpc-1',
      ),
    ).toHaveLength(1);
  });

  test("empty values are unset, as upstream: RoleARN, SourceARN, VPC, topology and NLB keys", () => {
    const config = ok(
      "[Global]\nKubernetesClusterID = c\nRoleARN =\nSourceARN = \nVPC =\nZone =\nSupportedTopologyInstanceTypePattern =\nNLBSecurityGroupMode =\nDisableSecurityGroupIngress =",
    );
    expect(config).toMatchObject({ assumeRole: undefined, vpc: "", region: "", disableSecurityGroupIngress: false });
  });

  test("RoleARN and SourceARN become an AssumeRole", () => {
    const config = ok(
      `[Global]\nKubernetesClusterID = c\nRoleARN = ${ROLE}\nSourceARN = arn:aws:eks:us-east-1:444455556666:cluster/prod`,
    );
    expect(config.assumeRole).toEqual({ roleARN: ROLE, sourceARN: "arn:aws:eks:us-east-1:444455556666:cluster/prod" });
  });

  test("an elasticloadbalancing override serves ELBv2 too; sts, signing name and region are kept; unused services pass", () => {
    const text = `[Global]\nKubernetesClusterID = c\nRegion = us-east-1\nRoleARN = ${ROLE}\n${ovr("a", "ec2")}${ovr("b", "elasticloadbalancing")}${ovr("c", "sts")}${ovr("d", "kms")}[ServiceOverride "e"]\nService = ec2\nRegion = eu-west-1\nURL = https://ec2.example\nSigningRegion = eu-central-1\nSigningName = ec2\nSigningMethod = v4\n`;
    const config = ok(text);
    expect(config.overrides.map((o) => o.service)).toEqual(["ec2", "elb", "sts", "ec2"]);
    expect(overrideFor(config.overrides, "elbv2", "us-east-1")?.service).toBe("elb");
    expect(overrideFor(config.overrides, "ec2", "eu-west-1")).toMatchObject({
      signingRegion: "eu-central-1",
      signingName: "ec2",
    });
  });

  test("every problem is reported at once", () => {
    expect(errors("[Global]\nVPC = nope\nZone = nope\nFoo = 1")).toHaveLength(4);
  });
});
