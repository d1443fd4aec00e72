import { describe, expect, test } from "bun:test";
import { parseVSphereConfig } from "./config.ts";
import type { VCenterSettings } from "./vcenter-config.ts";

const vcenterOf = (text: string): VCenterSettings => {
  const parsed = parseVSphereConfig(text);
  if (!parsed.ok) throw new Error(parsed.errors.join("\n"));
  return parsed.config.vcenter;
};

const ini = (global: string, entry: string): string =>
  `[Global]\nuser = u\npassword = p\n${global}\n[VirtualCenter "vc"]\n${entry}\n`;
const yaml = (global: string, entry: string): string =>
  `global:\n  user: u\n  password: p\n${global}\nvcenter:\n  vc:\n    server: vc\n${entry}\n`;

type ListKey = "datacenters" | "ipFamilies";

describe("lists: the entry's empty one falls back to global's (upstream's len(...) == 0); no ipFamily is ipv4", () => {
  test.each<[string, string, ListKey, string[]]>([
    ['INI: datacenters = ""', ini('datacenters = "dc1"', 'datacenters = ""'), "datacenters", ["dc1"]],
    ["YAML: datacenters: []", yaml("  datacenters: [dc1]", "    datacenters: []"), "datacenters", ["dc1"]],
    ['YAML: datacenters: ""', yaml("  datacenters: [dc1]", '    datacenters: ""'), "datacenters", ["dc1"]],
    ["the entry's own list wins", ini('datacenters = "dc1"', 'datacenters = "dc2"'), "datacenters", ["dc2"]],
    ["neither: every datacenter", ini("", 'datacenters = ""'), "datacenters", []],
    [
      'INI: entry ip-family = "" under [Global] ipv6',
      ini('ip-family = "ipv6"', 'ip-family = ""'),
      "ipFamilies",
      ["ipv6"],
    ],
    ['INI: [Global] ip-family = ""', ini('ip-family = ""', ""), "ipFamilies", ["ipv4"]],
    ["YAML: global ipFamily: []", yaml("  ipFamily: []", ""), "ipFamilies", ["ipv4"]],
    ['YAML: entry ipFamily: ""', yaml("", '    ipFamily: ""'), "ipFamilies", ["ipv4"]],
    ["YAML: empty items dropped (validateIPFamily)", yaml('  ipFamily: ["", ipv6]', ""), "ipFamilies", ["ipv6"]],
    [
      "YAML: the entry's own order wins",
      yaml("  ipFamily: [ipv4]", "    ipFamily: [ipv6, ipv4]"),
      "ipFamilies",
      ["ipv6", "ipv4"],
    ],
  ])("%s", (_title, text, key, expected) => {
    expect<readonly string[]>(vcenterOf(text)[key]).toEqual(expected);
  });
});

describe("a password is used as written", () => {
  test.each([
    ["INI: unquoted", ini("", ""), "p"],
    ["INI: quoted spaces kept", '[Global]\nuser = u\npassword = " p w "\n[VirtualCenter "vc"]\n', " p w "],
    ["YAML: quoted spaces kept", 'global:\n  user: u\n  password: " p w "\nvcenter:\n  vc:\n    server: vc\n', " p w "],
  ])("%s", (_title, text, expected) => {
    expect(vcenterOf(text).credentials).toEqual({ kind: "inline", username: "u", password: expected });
  });
});
