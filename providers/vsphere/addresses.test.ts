import { describe, expect, test } from "bun:test";
import { parseCIDR, type CIDR } from "../../src/net/ip.ts";
import { nodeAddressesOf, type GuestAddresses } from "./addresses.ts";
import type { IpFamily, NodeNetworks } from "./config.ts";
import type { GuestNic } from "./queries.ts";

const cidr = (text: string): CIDR => parseCIDR(text) as CIDR;
const nets = (extra: Partial<NodeNetworks> = {}): NodeNetworks => ({
  internalSubnets: [],
  externalSubnets: [],
  excludeInternalSubnets: [],
  excludeExternalSubnets: [],
  ...extra,
});
const nic = (network: string, ...ips: string[]): GuestNic => ({ network, ips, deviceConfigId: 4000 });
const TWO_NICS = [nic("VM Network", "10.20.0.4", "fd00::4", "fe80::1"), nic("External Network", "192.0.2.4")];
const ETH0_ETH1 = [nic("Mgmt", "192.168.1.5"), nic("Pods", "10.0.0.5")];
interface Given {
  nics: readonly GuestNic[];
  settings: NodeNetworks;
  families: readonly IpFamily[];
  staticIps?: readonly string[];
}
const given = (nics: Given["nics"], settings: NodeNetworks, families: Given["families"]): Given => ({
  nics,
  settings,
  families,
});
const guest = (hostName: string, nics: readonly GuestNic[], staticIps?: readonly string[]): GuestAddresses => ({
  hostName,
  nics,
  staticIps,
});
const pairs = (answer: ReturnType<typeof nodeAddressesOf>): string[] =>
  "error" in answer ? [answer.error] : answer.addresses.map((a) => `${a.type}=${a.address}`);

describe("node addresses from guest NICs, chosen across the VM", () => {
  test.each([
    [
      "no settings: the VM's first IPv4 is both internal and external, the second NIC adds nothing",
      given(TWO_NICS, nets(), ["ipv4"]),
      ["Hostname=node-a", "InternalIP=10.20.0.4", "ExternalIP=10.20.0.4"],
    ],
    [
      "subnets select the roles",
      given(TWO_NICS, nets({ internalSubnets: [cidr("10.20.0.0/16")], externalSubnets: [cidr("192.0.2.0/24")] }), [
        "ipv4",
      ]),
      ["Hostname=node-a", "InternalIP=10.20.0.4", "ExternalIP=192.0.2.4"],
    ],
    [
      "the internal subnet matches the second NIC: its IP is the only InternalIP, no fallback for external",
      given(ETH0_ETH1, nets({ internalSubnets: [cidr("10.0.0.0/8")] }), ["ipv4"]),
      ["Hostname=node-a", "InternalIP=10.0.0.5"],
    ],
    [
      "several subnets are tried in the order given, not in NIC order",
      given(ETH0_ETH1, nets({ internalSubnets: [cidr("10.0.0.0/8"), cidr("192.168.0.0/16")] }), ["ipv4"]),
      ["Hostname=node-a", "InternalIP=10.0.0.5"],
    ],
    [
      "network names select the roles when no subnet matches",
      given(
        TWO_NICS,
        nets({
          internalSubnets: [cidr("172.16.0.0/12")],
          internalNetworkName: "vm network",
          externalNetworkName: "External Network",
        }),
        ["ipv4"],
      ),
      ["Hostname=node-a", "InternalIP=10.20.0.4", "ExternalIP=192.0.2.4"],
    ],
    [
      "ipv6 first: link-local never counts; one pair per family",
      given(TWO_NICS, nets(), ["ipv6", "ipv4"]),
      ["Hostname=node-a", "InternalIP=fd00::4", "ExternalIP=fd00::4", "InternalIP=10.20.0.4", "ExternalIP=10.20.0.4"],
    ],
    [
      "an excluded subnet is never internal: the fallback takes the next IP for that role",
      given(TWO_NICS, nets({ excludeInternalSubnets: [cidr("10.20.0.0/16")] }), ["ipv4"]),
      ["Hostname=node-a", "InternalIP=192.0.2.4", "ExternalIP=10.20.0.4"],
    ],
    [
      "a family the guest lacks is passed over",
      given([nic("VM Network", "10.20.0.4")], nets(), ["ipv6", "ipv4"]),
      ["Hostname=node-a", "InternalIP=10.20.0.4", "ExternalIP=10.20.0.4"],
    ],
  ])("%s", (_title, { nics, settings, families }, expected) => {
    expect(pairs(nodeAddressesOf(guest("node-a", nics), settings, families))).toEqual(expected);
  });

  test("guest info is required: an empty host name or no NICs is an error, not an answer", () => {
    expect(pairs(nodeAddressesOf(guest("", TWO_NICS), nets(), ["ipv4"]))[0]).toContain("host name is empty");
    expect(pairs(nodeAddressesOf(guest("node-a", []), nets(), ["ipv4"]))[0]).toContain("no network interfaces");
    expect(
      pairs(nodeAddressesOf(guest("node-a", [nic("x", "127.0.0.1", "169.254.1.1")]), nets(), ["ipv4"]))[0],
    ).toContain("no usable ipv4");
  });

  test("both network names set and no vNIC on either: an error, as upstream", () => {
    const settings = nets({ internalNetworkName: "a", externalNetworkName: "b" });
    expect(pairs(nodeAddressesOf(guest("node-a", TWO_NICS), settings, ["ipv4"]))[0]).toContain("no vNIC is on");
  });

  test("interfaces that are not vNICs are skipped", () => {
    const answer = nodeAddressesOf(
      guest("node-a", [{ network: "", ips: ["172.17.0.1"], deviceConfigId: -1 }, nic("n", "10.0.0.9")]),
      nets(),
      ["ipv4"],
    );
    expect(pairs(answer)).toEqual(["Hostname=node-a", "InternalIP=10.0.0.9", "ExternalIP=10.0.0.9"]);
  });
});

/** Upstream's StaticAddresses_* cases of TestDiscoverNodeIPs, the metadata already decoded to canonical IPs. */
describe("statically configured addresses (guestinfo.metadata) come first", () => {
  const VM_NET = "VM Network";
  interface Case {
    families: readonly IpFamily[];
    nics: readonly GuestNic[];
    staticIps: readonly string[];
    settings: NodeNetworks;
  }
  test.each<[string, Case, string]>([
    [
      "IPv6: the static address is both roles",
      {
        families: ["ipv6"],
        nics: [nic(VM_NET, "fe80::1", "fd01:1234::1", "fd01:cccc::1")],
        staticIps: ["fd01:cccc::1"],
        settings: nets(),
      },
      "fd01:cccc::1",
    ],
    [
      "IPv4: the static address is both roles",
      {
        families: ["ipv4"],
        nics: [nic(VM_NET, "192.168.1.10", "192.168.1.12")],
        staticIps: ["192.168.1.12"],
        settings: nets(),
      },
      "192.168.1.12",
    ],
    [
      "the metadata's order among static addresses",
      {
        families: ["ipv4"],
        nics: [nic(VM_NET, "192.168.1.10", "192.168.1.12")],
        staticIps: ["192.168.1.12", "192.168.1.10"],
        settings: nets(),
      },
      "192.168.1.12",
    ],
    [
      "a subnet still wins over order: the static address inside it",
      {
        families: ["ipv4"],
        nics: [nic(VM_NET, "192.168.1.10", "192.168.1.12", "10.10.10.10")],
        staticIps: ["10.10.10.10", "192.168.1.12"],
        settings: nets({ internalSubnets: [cidr("192.168.0.0/16")], externalSubnets: [cidr("192.168.0.0/16")] }),
      },
      "192.168.1.12",
    ],
    [
      "an excluded static address is never taken",
      {
        families: ["ipv4"],
        nics: [nic(VM_NET, "192.168.1.10", "192.168.1.12", "10.10.10.10")],
        staticIps: ["192.168.1.12", "10.10.10.10"],
        settings: nets({
          excludeInternalSubnets: [cidr("192.168.0.0/16")],
          excludeExternalSubnets: [cidr("192.168.0.0/16")],
        }),
      },
      "10.10.10.10",
    ],
    [
      "a network name still wins: the static address on that network",
      {
        families: ["ipv4"],
        nics: [nic("internal_net", "192.168.1.8"), nic(VM_NET, "192.168.1.10", "192.168.1.12", "10.10.10.10")],
        staticIps: ["192.168.1.8", "192.168.1.12", "10.10.10.10"],
        settings: nets({ internalNetworkName: VM_NET, externalNetworkName: VM_NET }),
      },
      "192.168.1.12",
    ],
    [
      "static addresses on no NIC are not added",
      {
        families: ["ipv4"],
        nics: [nic(VM_NET, "192.168.1.8")],
        staticIps: ["192.168.1.12", "10.10.10.10"],
        settings: nets(),
      },
      "192.168.1.8",
    ],
    [
      "IPv6 shorthand from Tools matches the metadata's canonical form",
      {
        families: ["ipv6"],
        nics: [nic(VM_NET, "fd00::1", "fd01:1:2:2919:abba::401")],
        staticIps: ["fd01:1:2:2919:abba::401"],
        settings: nets(),
      },
      "fd01:1:2:2919:abba::401",
    ],
    [
      "a kube-vip VIP Tools lists first on a CAPV control plane",
      {
        families: ["ipv4"],
        nics: [nic(VM_NET, "10.0.0.100", "10.0.0.11")],
        staticIps: ["10.0.0.11"],
        settings: nets(),
      },
      "10.0.0.11",
    ],
    [
      "no static addresses: Tools' order",
      { families: ["ipv4"], nics: [nic(VM_NET, "10.0.0.100", "10.0.0.11")], staticIps: [], settings: nets() },
      "10.0.0.100",
    ],
  ])("%s", (_title, { families, nics, staticIps, settings }, ip) => {
    expect(pairs(nodeAddressesOf(guest("node-a", nics, staticIps), settings, families))).toEqual([
      "Hostname=node-a",
      `InternalIP=${ip}`,
      `ExternalIP=${ip}`,
    ]);
  });
});
