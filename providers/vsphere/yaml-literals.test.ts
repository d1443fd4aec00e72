import { describe, expect, test } from "bun:test";
import { parseVSphereConfig, type VSphereConfig } from "./config.ts";
import { scalarSpellings } from "./yaml-literals.ts";

const yaml = (global: string, rest = ""): string =>
  `global:\n  user: admin\n${global}\nvcenter:\n  vc:\n    server: vc.example.com\n${rest}`;
const parsed = (text: string): VSphereConfig | string[] => {
  const r = parseVSphereConfig(text);
  return r.ok ? r.config : r.errors;
};
const configOf = (text: string): VSphereConfig => {
  const r = parsed(text);
  if (Array.isArray(r)) throw new Error(r.join("\n"));
  return r;
};
const password = (config: VSphereConfig): string =>
  config.vcenter.credentials.kind === "inline" ? config.vcenter.credentials.password : "";

describe("YAML numbers and booleans in text fields are read as written, as upstream's yaml.v2", () => {
  test.each([
    ["a leading zero is kept", yaml("  password: 0123"), "0123"],
    ["a float's trailing zero is kept", yaml("  password: 1.10"), "1.10"],
    ["a boolean keeps its case", yaml("  password: True"), "True"],
    ["in flow style too", "{global: {user: a, password: 0x1F}, vcenter: {vc: {server: vc}}}", "0x1F"],
  ])("%s", (_title, text, expected) => {
    expect(password(configOf(text))).toBe(expected);
  });

  test("lists, labels and nodes too; port and insecureFlag still read", () => {
    const config = configOf(
      yaml(
        "  password: p\n  port: 0443\n  insecureFlag: TRUE",
        "    datacenters: [2023, 07]\nlabels:\n  zone: 1\n  region: 2.50\nnodes:\n  internalVmNetworkName: 100\n",
      ),
    );
    expect(config.vcenter.datacenters).toEqual(["2023", "07"]);
    expect(config.vcenter.port).toBe(443);
    expect(config.vcenter.insecure).toBe(true);
    expect(config.labels).toEqual({ zone: "1", region: "2.50" });
    expect(config.nodes.internalNetworkName).toBe("100");
  });

  test("a value the file spells two ways is refused, naming each key, never guessed", () => {
    const errors = parsed(yaml("  password: 0123", "    user: 123\n"));
    expect(Array.isArray(errors) ? errors.join("\n") : "").toContain(
      "vcenter.vc.user: reads as the number 123, and the file spells that value more than one way",
    );
    expect(Array.isArray(errors) ? errors.join("\n") : "").toContain("global.password: reads as the number 123");
    expect(Array.isArray(errors) && errors[0]).toEndWith("quote it");
  });

  test("every token that reads as a number or boolean, by value", () => {
    const spellings = scalarSpellings("a: 0123\nb: [123, x, 1.10]\nc: {d: true} # 07\ne: '5'");
    expect(spellings.get(123)).toEqual(new Set(["0123", "123"]));
    expect(spellings.get(1.1)).toEqual(new Set(["1.10"]));
    expect(spellings.get(true)).toEqual(new Set(["true"]));
    expect(spellings.get(7)).toEqual(new Set(["07"]));
    expect(spellings.has(5)).toBe(false);
  });
});
