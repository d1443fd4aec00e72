import { describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRegistry } from "../cloud/registry.ts";
import { providerFactories } from "../builtins.ts";
import { prepare } from "./prepare.ts";

const providers = createRegistry(providerFactories());

describe("prepare", () => {
  test("the configuration is frozen and survives a structured clone unchanged (what a worker thread receives)", () => {
    const argv = [
      "--cloud-provider=fake",
      "--cluster-cidr=10.244.0.0/16,fd00:10:244::/56",
      "--controllers=*,-node-route-controller",
    ];
    const prepared = prepare(argv, providers);
    if (!prepared.ok) throw new Error(prepared.errors.join("\n"));
    expect(Object.isFrozen(prepared.config)).toBe(true);
    expect(Object.isFrozen(prepared.config.leaderElection)).toBe(true);
    expect(Object.isFrozen(prepared.providerConfig.settings)).toBe(true);
    expect(() => (prepared.config.controllers as string[]).push("x")).toThrow();
    expect(structuredClone(prepared.config)).toEqual(prepared.config);
    expect(structuredClone(prepared.providerConfig)).toEqual(prepared.providerConfig);
  });

  test("an unreadable --cloud-config is one line naming the flag and the file", () => {
    const missing = join(mkdtempSync(join(tmpdir(), "prepare-")), "absent.conf");
    const prepared = prepare(["--cloud-provider=fake", `--cloud-config=${missing}`], providers);
    const errors = prepared.ok ? [] : prepared.errors;
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(`invalid value ${JSON.stringify(missing)} for flag --cloud-config: cannot read it`);
  });

  test("a cloud-config the provider rejects names the file", () => {
    const file = join(mkdtempSync(join(tmpdir(), "prepare-")), "cloud.yaml");
    writeFileSync(file, "inventory: [\n");
    const prepared = prepare(["--cloud-provider=baremetal", `--cloud-config=${file}`], providers);
    const errors = prepared.ok ? [] : prepared.errors;
    expect(errors.length).toBeGreaterThan(0);
    for (const line of errors) expect(line).toStartWith(`invalid --cloud-config ${JSON.stringify(file)}: `);
  });
});
