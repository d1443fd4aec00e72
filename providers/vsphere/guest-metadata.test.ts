import { describe, expect, test } from "bun:test";
import { gzipSync } from "node:zlib";
import { staticAddressesOf, type GuestMetadata } from "./guest-metadata.ts";

const b64 = (text: string | Buffer): string => Buffer.from(text).toString("base64");

// The metadata shapes of upstream's nodemanager_test.go (guestInfoWithAddresses, guestInfoWithIPv6DHCP,
// guestInfoEncodedNetconfigWithAddresses), as CAPV writes them.
const HEAD = `instance-id: "tkg-mgmt-vc"
local-hostname: "tkg-mgmt-vc"
wait-on-network:
  ipv4: false
  ipv6: false
`;
/** The netplan v2 config (upstream's encoded one nests `macaddress` under `match:` only in the plain form). */
const netconfig = (addresses: string): string => `version: 2
ethernets:
  id0:
    addresses: [${addresses}]
    match:
      macaddress: "00:11:22"
    set-name: "eth0"
    wakeonlan: true
    dhcp4: false
    dhcp6: false`;
const indented = (text: string): string => text.replace(/^/gm, "  ");
const withAddresses = (addresses: string): string => `${HEAD}network:\n${indented(netconfig(addresses))}`;
const IPV6_DHCP = `${HEAD}network:
  version: 2
  ethernets:
    id0:
      dhcp6: true`;
const encodedNetconfig = (encoding: string, encoded: string): string =>
  `${HEAD}network.encoding: ${encoding}\nnetwork: ${encoded}`;

const TWO_NICS = `${HEAD}network:
  version: 2
  ethernets:
    id0:
      addresses: ["10.0.0.11/24", "fd00::11/64"]
    id1:
      addresses:
        - 192.168.5.11/24
        - "10.0.0.11/24"`;

describe("static addresses from guestinfo.metadata", () => {
  test.each<[string, GuestMetadata, string[]]>([
    ["no metadata", {}, []],
    ["base64, one IPv6", { metadata: b64(withAddresses("fd01:cccc::1/128")), encoding: "base64" }, ["fd01:cccc::1"]],
    [
      "base64, the metadata's order, prefixes stripped",
      { metadata: b64(withAddresses("192.168.1.12/64,192.168.1.10/64")), encoding: "base64" },
      ["192.168.1.12", "192.168.1.10"],
    ],
    [
      "IPv6 longhand in the metadata, canonical out",
      { metadata: b64(withAddresses("fd01:1:2:2919:abba:0000:0000:401/128")), encoding: "base64" },
      ["fd01:1:2:2919:abba::401"],
    ],
    ["DHCP only: none", { metadata: b64(IPV6_DHCP), encoding: "base64" }, []],
    [
      "gzip+base64 metadata",
      { metadata: b64(gzipSync(withAddresses("10.0.0.11/24"))), encoding: "gzip+base64" },
      ["10.0.0.11"],
    ],
    ["gz+b64 metadata", { metadata: b64(gzipSync(withAddresses("10.0.0.11/24"))), encoding: "gz+b64" }, ["10.0.0.11"]],
    ["no encoding: plain YAML", { metadata: withAddresses("10.0.0.11") }, ["10.0.0.11"]],
    [
      "network.encoding base64",
      { metadata: b64(encodedNetconfig("base64", b64(netconfig("fd01:cccc::1/128")))), encoding: "base64" },
      ["fd01:cccc::1"],
    ],
    [
      "network.encoding gzip+base64",
      {
        metadata: b64(encodedNetconfig("gzip+base64", b64(gzipSync(netconfig("fd01:cccc::1/128"))))),
        encoding: "base64",
      },
      ["fd01:cccc::1"],
    ],
    [
      "every ethernet in order, each address once",
      { metadata: b64(TWO_NICS), encoding: "base64" },
      ["10.0.0.11", "fd00::11", "192.168.5.11"],
    ],
  ])("%s", (_title, guest, expected) => {
    const answer = staticAddressesOf(guest);
    expect(answer.addresses).toEqual(expected);
    expect(answer.ignored).toBeUndefined();
  });

  test.each<[string, GuestMetadata, string]>([
    [
      "upstream's invalid metadata (a YAML scalar)",
      { metadata: b64("not-valid-yaml this should error"), encoding: "base64" },
      "not a YAML mapping",
    ],
    ["not base64", { metadata: "%%% not base64 %%%", encoding: "base64" }, "not base64"],
    ["gzip+base64 that is not gzip", { metadata: b64(withAddresses("10.0.0.11")), encoding: "gzip+base64" }, "ignored"],
    ["an unknown encoding", { metadata: "x", encoding: "rot13" }, "unknown encoding rot13"],
    ["broken YAML", { metadata: b64("network: [unclosed"), encoding: "base64" }, "ignored"],
    ["no network config", { metadata: b64(HEAD), encoding: "base64" }, "no network config"],
    [
      "network.encoding that does not decode",
      { metadata: b64(encodedNetconfig("base64", "not*base64")), encoding: "base64" },
      "not base64",
    ],
  ])("%s: no addresses, never an error", (_title, guest, reason) => {
    const answer = staticAddressesOf(guest);
    expect(answer.addresses).toEqual([]);
    expect(answer.ignored).toContain(reason);
  });
});
