import { describe, expect, test } from "bun:test";
import type { Instance } from "@aws-sdk/client-ec2";
import {
  instanceIDFromNodeName,
  instanceIDFromProviderID,
  isGone,
  nodeAddresses,
  providerIDOf,
  toEc2Instance,
} from "./ec2-instance.ts";

const sdkInstance = (extra: Partial<Instance> = {}): Instance => ({
  InstanceId: "i-0abc",
  State: { Name: "running" },
  InstanceType: "m5.large",
  Placement: { AvailabilityZone: "us-west-2a" },
  PrivateIpAddress: "10.0.1.4",
  PrivateDnsName: "ip-10-0-1-4.us-west-2.compute.internal",
  NetworkInterfaces: [
    {
      Status: "in-use",
      Attachment: { DeviceIndex: 1 },
      PrivateIpAddresses: [{ PrivateIpAddress: "10.0.2.9" }],
      Ipv6Addresses: [{ Ipv6Address: "2600::9" }],
    },
    {
      Status: "in-use",
      Attachment: { DeviceIndex: 0 },
      PrivateIpAddresses: [{ PrivateIpAddress: "10.0.1.4" }, { PrivateIpAddress: "10.0.1.5" }],
      Ipv6Addresses: [{ Ipv6Address: "2600::4" }, { Ipv6Address: "2600::5" }],
    },
    { Status: "detaching", Attachment: { DeviceIndex: 2 }, PrivateIpAddresses: [{ PrivateIpAddress: "10.0.3.3" }] },
  ],
  ...extra,
});

describe("EC2 instance mapping", () => {
  test("providerID is aws:///<zone>/<id>", () => {
    expect(providerIDOf(toEc2Instance(sdkInstance()))).toBe("aws:///us-west-2a/i-0abc");
  });

  test.each([
    ["aws:///us-west-2a/i-0abc", "i-0abc"],
    ["aws:////i-0abc", "i-0abc"],
    ["i-0abc", "i-0abc"],
    ["aws:///us-west-2a/fargate-10.0.0.1", undefined],
    ["gce://project/zone/i-0abc", undefined],
    ["aws:///us-west-2a/", undefined],
  ])("providerID %s → %s", (providerID, id) => {
    expect(instanceIDFromProviderID(providerID)).toBe(id);
  });

  test.each([
    ["i-0abc", "i-0abc"],
    ["i-0abc.us-west-2.compute.internal", "i-0abc"],
    ["ip-10-0-1-4.us-west-2.compute.internal", undefined],
    ["node-1", undefined],
  ])("node name %s → instance %s", (name, id) => {
    expect(instanceIDFromNodeName(name)).toBe(id);
  });

  test("IPv4 addresses: in-use interfaces by device index, then public IP, private DNS (InternalDNS + Hostname), public DNS", () => {
    const i = toEc2Instance(
      sdkInstance({ PublicIpAddress: "54.1.2.3", PublicDnsName: "ec2-54-1-2-3.us-west-2.compute.amazonaws.com" }),
    );
    expect(nodeAddresses(i, ["ipv4"])).toEqual([
      { type: "InternalIP", address: "10.0.1.4" },
      { type: "InternalIP", address: "10.0.1.5" },
      { type: "InternalIP", address: "10.0.2.9" },
      { type: "ExternalIP", address: "54.1.2.3" },
      { type: "InternalDNS", address: "ip-10-0-1-4.us-west-2.compute.internal" },
      { type: "Hostname", address: "ip-10-0-1-4.us-west-2.compute.internal" },
      { type: "ExternalDNS", address: "ec2-54-1-2-3.us-west-2.compute.amazonaws.com" },
    ]);
  });

  test("IPv6: the first address of each in-use interface, families in the configured order", () => {
    const i = toEc2Instance(sdkInstance());
    expect(nodeAddresses(i, ["ipv6", "ipv4"]).slice(0, 3)).toEqual([
      { type: "InternalIP", address: "2600::4" },
      { type: "InternalIP", address: "2600::9" },
      { type: "InternalIP", address: "10.0.1.4" },
    ]);
  });

  test("without interfaces the primary private IP is used", () => {
    const i = toEc2Instance(sdkInstance({ NetworkInterfaces: [], PrivateDnsName: "" }));
    expect(nodeAddresses(i, ["ipv4"])).toEqual([{ type: "InternalIP", address: "10.0.1.4" }]);
  });

  test.each([
    ["running", false],
    ["stopped", false],
    ["shutting-down", false],
    ["terminated", true],
    [undefined, true],
  ] as const)("state %s: gone %s", (state, gone) => {
    expect(isGone(toEc2Instance(sdkInstance({ State: state ? { Name: state } : undefined })))).toBe(gone);
  });
});
