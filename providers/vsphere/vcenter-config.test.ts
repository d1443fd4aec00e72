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

describe("the vCenter entry's empty lists fall back to global's (upstream's len(...) == 0)", () => {
  test.each([
    ['INI: datacenters = ""', ini('datacenters = "dc1"', 'datacenters = ""'), ["dc1"]],
    ["YAML: datacenters: []", yaml("  datacenters: [dc1]", "    datacenters: []"), ["dc1"]],
    ['YAML: datacenters: ""', yaml("  datacenters: [dc1]", '    datacenters: ""'), ["dc1"]],
    ["the entry's own list wins", ini('datacenters = "dc1"', 'datacenters = "dc2"'), ["dc2"]],
    ["neither: every datacenter", ini("", 'datacenters = ""'), []],
  ])("%s", (_title, text, expected) => {
    expect(vcenterOf(text).datacenters).toEqual(expected);
  });
});

describe("ipFamily: an empty entry falls back to global's", () => {
  test('INI: entry ip-family = "" under [Global] ipv6', () => {
    expect(vcenterOf(ini('ip-family = "ipv6"', 'ip-family = ""')).ipFamilies).toEqual(["ipv6"]);
  });
});
