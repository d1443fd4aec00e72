/**
 * What the provider keeps of an EC2 instance, and the pure mappings upstream defines on it: providerID
 * `aws:///<zone>/<instance-id>`, node name → instance ID, and the node addresses (cloud-provider-aws
 * `extractNodeAddresses`).
 */
import type { Instance } from "@aws-sdk/client-ec2";
import type { NodeAddress } from "../../src/kube/objects.ts";
import type { IpFamily } from "./config.ts";
import { tagMap } from "./tags.ts";

export type Ec2State = "pending" | "running" | "shutting-down" | "terminated" | "stopping" | "stopped" | "unknown";

export interface Ec2Interface {
  readonly deviceIndex: number;
  readonly inUse: boolean;
  readonly privateIps: readonly string[];
  readonly ipv6: readonly string[];
}

export interface Ec2Instance {
  readonly id: string;
  readonly state: Ec2State;
  readonly instanceType: string;
  readonly zone: string;
  readonly vpcId: string;
  readonly subnetId: string;
  readonly privateIp: string;
  readonly publicIp: string;
  readonly privateDnsName: string;
  readonly publicDnsName: string;
  readonly interfaces: readonly Ec2Interface[];
  readonly securityGroupIds: readonly string[];
  readonly sourceDestCheck: boolean;
  readonly tags: Readonly<Record<string, string>>;
}

const STATES: readonly Ec2State[] = ["pending", "running", "shutting-down", "terminated", "stopping", "stopped"];

const text = (value: string | undefined): string => value ?? "";
const present = (values: readonly (string | undefined)[]): string[] =>
  values.filter((v): v is string => v !== undefined && v !== "");

function interfacesOf(i: Instance): Ec2Interface[] {
  return (i.NetworkInterfaces ?? []).map((n) => ({
    deviceIndex: n.Attachment?.DeviceIndex ?? 0,
    inUse: n.Status === "in-use",
    privateIps: present((n.PrivateIpAddresses ?? []).map((a) => a.PrivateIpAddress)),
    ipv6: present((n.Ipv6Addresses ?? []).map((a) => a.Ipv6Address)),
  }));
}

function stateOf(i: Instance): Ec2State {
  const state = i.State?.Name as Ec2State | undefined;
  return state !== undefined && STATES.includes(state) ? state : "unknown";
}

export function toEc2Instance(i: Instance): Ec2Instance {
  return {
    id: text(i.InstanceId),
    state: stateOf(i),
    instanceType: text(i.InstanceType),
    zone: text(i.Placement?.AvailabilityZone),
    vpcId: text(i.VpcId),
    subnetId: text(i.SubnetId),
    privateIp: text(i.PrivateIpAddress),
    publicIp: text(i.PublicIpAddress),
    privateDnsName: text(i.PrivateDnsName),
    publicDnsName: text(i.PublicDnsName),
    interfaces: interfacesOf(i),
    securityGroupIds: present((i.SecurityGroups ?? []).map((g) => g.GroupId)),
    sourceDestCheck: i.SourceDestCheck ?? true,
    tags: tagMap(i.Tags),
  };
}

/** Gone for good: `exists` is false only for these. A missing State counts as gone, as upstream. */
export function isGone(i: Ec2Instance): boolean {
  return i.state === "terminated" || i.state === "unknown";
}

export function providerIDOf(i: Ec2Instance): string {
  return `aws:///${i.zone}/${i.id}`;
}

const INSTANCE_ID = /^i-[^/]*$/;

/**
 * The instance ID in a providerID. Accepts `aws:///<zone>/<id>`, `aws:////<id>` and a bare `i-…`
 * (upstream `MapToAWSInstanceID`); undefined for anything else.
 */
export function instanceIDFromProviderID(providerID: string): string | undefined {
  let rest = providerID;
  if (rest.startsWith("aws://")) rest = rest.slice("aws://".length);
  else if (rest.includes("://")) return undefined;
  const id = rest.split("/").at(-1) ?? "";
  return INSTANCE_ID.test(id) ? id : undefined;
}

/** Resource-based node names (`i-0abc` or `i-0abc.<region>.compute.internal`) name their instance. */
export function instanceIDFromNodeName(name: string): string | undefined {
  if (!name.startsWith("i-")) return undefined;
  const id = name.split(".")[0] ?? "";
  return INSTANCE_ID.test(id) ? id : undefined;
}

function ipv4Addresses(i: Ec2Instance, interfaces: readonly Ec2Interface[]): NodeAddress[] {
  const out: NodeAddress[] = [];
  const privateIps =
    interfaces.length > 0 ? interfaces.flatMap((n) => n.privateIps) : [i.privateIp].filter((a) => a !== "");
  for (const address of privateIps) out.push({ type: "InternalIP", address });
  if (i.publicIp !== "") out.push({ type: "ExternalIP", address: i.publicIp });
  if (i.privateDnsName !== "")
    out.push({ type: "InternalDNS", address: i.privateDnsName }, { type: "Hostname", address: i.privateDnsName });
  if (i.publicDnsName !== "") out.push({ type: "ExternalDNS", address: i.publicDnsName });
  return out;
}

/**
 * Upstream's address list, per family in `families` order. IPv4: every private IP of every in-use
 * interface (by device index) as InternalIP, the public IP as ExternalIP, the private DNS name as
 * InternalDNS and Hostname, the public DNS name as ExternalDNS. IPv6: the first IPv6 of each in-use
 * interface as InternalIP.
 */
export function nodeAddresses(i: Ec2Instance, families: readonly IpFamily[]): NodeAddress[] {
  const interfaces = i.interfaces.filter((n) => n.inUse).sort((a, b) => a.deviceIndex - b.deviceIndex);
  return families.flatMap((family) =>
    family === "ipv4"
      ? ipv4Addresses(i, interfaces)
      : interfaces.flatMap((n) => (n.ipv6[0] ? [{ type: "InternalIP" as const, address: n.ipv6[0] }] : [])),
  );
}
