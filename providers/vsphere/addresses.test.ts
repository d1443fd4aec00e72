import { describe, expect, test } from "bun:test";
import { parseCIDR, type CIDR } from "../../src/net/ip.ts";
import { nodeAddressesOf } from "./addresses.ts";
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
}
const given = (nics: Given["nics"], settings: NodeNetworks, families: Given["families"]): Given => ({
  nics,
  settings,
  families,
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
    expect(pairs(nodeAddressesOf("node-a", nics, settings, families))).toEqual(expected);
  });

  test("guest info is required: an empty host name or no NICs is an error, not an answer", () => {
    expect(pairs(nodeAddressesOf("", TWO_NICS, nets(), ["ipv4"]))[0]).toContain("host name is empty");
    expect(pairs(nodeAddressesOf("node-a", [], nets(), ["ipv4"]))[0]).toContain("no network interfaces");
    expect(pairs(nodeAddressesOf("node-a", [nic("x", "127.0.0.1", "169.254.1.1")], nets(), ["ipv4"]))[0]).toContain(
      "no usable ipv4",
    );
  });

  test("both network names set and no vNIC on either: an error, as upstream", () => {
    const settings = nets({ internalNetworkName: "a", externalNetworkName: "b" });
    expect(pairs(nodeAddressesOf("node-a", TWO_NICS, settings, ["ipv4"]))[0]).toContain("no vNIC is on");
  });

  test("interfaces that are not vNICs are skipped", () => {
    const answer = nodeAddressesOf(
      "node-a",
      [{ network: "", ips: ["172.17.0.1"], deviceConfigId: -1 }, nic("n", "10.0.0.9")],
      nets(),
      ["ipv4"],
    );
    expect(pairs(answer)).toEqual(["Hostname=node-a", "InternalIP=10.0.0.9", "ExternalIP=10.0.0.9"]);
  });
});
