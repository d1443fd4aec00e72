import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRegistry } from "../../src/cloud/registry.ts";
import { testProviderContext } from "../../test/harness/provider-context.ts";
import { eventually } from "../../test/harness/wait.ts";
import { providerFactories } from "../../src/builtins.ts";
import { parseBaremetalConfig } from "./config.ts";
import { node } from "./fixtures.test-support.ts";
import { createBaremetalProvider, type BaremetalProvider } from "./provider.ts";

const GOOD = `inventory: { defaults: { zone: z1 }, machines: [{ name: a }] }`;
const EDITED = `inventory: { defaults: { zone: z2 }, machines: [{ name: a }, { name: b, zone: z3 }] }`;
const BROKEN = `inventory: { machines: [{ name: B_ad }, { name: c, rack: nowhere }] }`;

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup) await c();
  cleanup = [];
});

function followed(text: string): { provider: BaremetalProvider; path: string; lines: string[] } {
  const dir = mkdtempSync(join(tmpdir(), "baremetal-"));
  const path = join(dir, "cloud.yaml");
  writeFileSync(path, text);
  const parsed = parseBaremetalConfig(text);
  if (!parsed.ok) throw new Error(parsed.errors.join("; "));
  const lines: string[] = [];
  const provider = createBaremetalProvider({ config: parsed.config, path, text }, testProviderContext([], lines), {
    followIntervalMs: 20,
  });
  cleanup.push(async () => {
    await provider.close?.();
    rmSync(dir, { recursive: true, force: true });
  });
  return { provider, path, lines };
}

const zoneOf = async (p: BaremetalProvider, name: string): Promise<string | undefined> =>
  (await p.instances?.instanceMetadata(node(name)))?.zone;

describe("following the cloud-config", () => {
  test("is registered as --cloud-provider=baremetal and validates its cloud-config", () => {
    const registry = createRegistry(providerFactories());
    expect(registry.names).toContain("baremetal");
    expect(registry.parse("baremetal", GOOD, "/etc/cloud.yaml").ok).toBe(true);
    const bad = registry.parse("baremetal", BROKEN, "/etc/cloud.yaml");
    expect(bad.ok ? [] : bad.errors).toEqual([
      'invalid --cloud-config "/etc/cloud.yaml": inventory.machines[0].name: "B_ad" is not a valid node name',
      'invalid --cloud-config "/etc/cloud.yaml": inventory.machines[1].rack: no rack named "nowhere" in inventory.racks',
    ]);
  });

  test("a valid edit applies without a restart", async () => {
    const { provider, path, lines } = followed(GOOD);
    expect(await zoneOf(provider, "a")).toBe("z1");
    expect(await zoneOf(provider, "b")).toBeUndefined();
    writeFileSync(path, EDITED);
    await eventually("the edit to apply", async () => (await zoneOf(provider, "b")) === "z3", 5000, 20);
    expect(await zoneOf(provider, "a")).toBe("z2");
    expect(lines.join("\n")).toMatch(/applied the edit of .*cloud.yaml: 2 machine\(s\), 0 pattern\(s\)/);
  });

  test("a broken edit is rejected line by line and the last good inventory stays in force", async () => {
    const { provider, path, lines } = followed(GOOD);
    writeFileSync(path, BROKEN);
    await eventually("the rejection", () => lines.some((l) => l.includes("nowhere")), 5000, 20);
    const rejected = lines.filter((l) => l.includes("ignoring the edit"));
    expect(rejected).toHaveLength(2);
    expect(rejected[0]).toMatch(
      /ignoring the edit of .*cloud.yaml, the last good configuration stays in force: inventory.machines\[0\].name: "B_ad" is not a valid node name/,
    );
    expect(await zoneOf(provider, "a")).toBe("z1");
    writeFileSync(path, "inventory: [");
    await eventually("the YAML error", () => lines.some((l) => l.includes("not valid YAML")), 5000, 20);
    expect(await zoneOf(provider, "a")).toBe("z1");
    rmSync(path);
    await eventually("the read error", () => lines.some((l) => l.includes("cannot read")), 5000, 20);
    expect(await zoneOf(provider, "a")).toBe("z1");
  });

  test("adding load balancers takes a restart; the inventory part of the edit still applies", async () => {
    const { provider, path, lines } = followed(GOOD);
    writeFileSync(path, `${EDITED}\nloadBalancers: { pools: [{ name: p, addresses: [10.0.0.0/30] }] }`);
    await eventually("the warning", () => lines.some((l) => l.includes("takes a restart")), 5000, 20);
    expect(provider.loadBalancer).toBeUndefined();
    expect(await zoneOf(provider, "b")).toBe("z3");
  });
});
