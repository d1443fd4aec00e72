import { describe, expect, test } from "bun:test";
import { parseCIDR, type CIDR } from "../../src/net/ip.ts";
import { nodeAddressesOf } from "./addresses.ts";
import type { NodeNetworks } from "./config.ts";
import type { GuestNic } from "./queries.ts";

const cidr = (text: string): CIDR => parseCIDR(text) as CIDR;
const nets = (extra: Partial<NodeNetworks> = {}): NodeNetworks => ({
  excludeInternalSubnets: [],
  excludeExternalSubnets: [],
  ...extra,
});
const nic = (network: string, ...ips: string[]): GuestNic => ({ network, ips, deviceConfigId: 4000 });
const TWO_NICS = [nic("VM Network", "10.20.0.4", "fd00::4", "fe80::1"), nic("External Network", "192.0.2.4")];
const pairs = (answer: ReturnType<typeof nodeAddressesOf>): string[] =>
  "error" in answer ? [answer.error] : answer.addresses.map((a) => `${a.type}=${a.address}`);

describe("node addresses from guest NICs", () => {
  test.each([
    [
      "no settings: each NIC's first IPv4 is both internal and external",
      nets(),
      ["ipv4"],
      [
        "Hostname=node-a",
        "InternalIP=10.20.0.4",
        "ExternalIP=10.20.0.4",
        "InternalIP=192.0.2.4",
        "ExternalIP=192.0.2.4",
      ],
    ],
    [
      "subnets select the roles",
      nets({ internalSubnet: cidr("10.20.0.0/16"), externalSubnet: cidr("192.0.2.0/24") }),
      ["ipv4"],
      ["Hostname=node-a", "InternalIP=10.20.0.4", "ExternalIP=192.0.2.4"],
    ],
    [
      "network names select the roles",
      nets({ internalNetworkName: "vm network", externalNetworkName: "External Network" }),
      ["ipv4"],
      ["Hostname=node-a", "InternalIP=10.20.0.4", "ExternalIP=192.0.2.4"],
    ],
    [
      "ipv6 first: link-local never counts",
      nets(),
      ["ipv6", "ipv4"],
      [
        "Hostname=node-a",
        "InternalIP=fd00::4",
        "ExternalIP=fd00::4",
        "InternalIP=10.20.0.4",
        "ExternalIP=10.20.0.4",
        "InternalIP=192.0.2.4",
        "ExternalIP=192.0.2.4",
      ],
    ],
    [
      "an excluded subnet is never internal",
      nets({ excludeInternalSubnets: [cidr("10.20.0.0/16")] }),
      ["ipv4"],
      ["Hostname=node-a", "ExternalIP=10.20.0.4", "InternalIP=192.0.2.4", "ExternalIP=192.0.2.4"],
    ],
  ] as const)("%s", (_title, settings, families, expected) => {
    expect(pairs(nodeAddressesOf("node-a", TWO_NICS, settings, families))).toEqual([...expected]);
  });

  test("guest info is required: an empty host name or no NICs is an error, not an answer", () => {
    expect(pairs(nodeAddressesOf("", TWO_NICS, nets(), ["ipv4"]))[0]).toContain("host name is empty");
    expect(pairs(nodeAddressesOf("node-a", [], nets(), ["ipv4"]))[0]).toContain("no network interfaces");
    expect(pairs(nodeAddressesOf("node-a", [nic("x", "127.0.0.1", "169.254.1.1")], nets(), ["ipv4"]))[0]).toContain(
      "no usable ipv4",
    );
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
