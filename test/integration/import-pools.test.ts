/**
 * `import-pools` round trip: the documented MetalLB and kube-vip examples, converted by the command,
 * are accepted by the real API server's AddressPool schema and read back unchanged.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { KubeObject } from "../../src/kube/objects.ts";
import { ADDRESS_POOLS } from "../../providers/shared/address-pools/crd.ts";
import { KUBE_VIP_YAML, METALLB_YAML } from "../../providers/shared/address-pools/import.fixtures.test-support.ts";
import { controlPlane } from "../harness/control-plane.ts";
import { runCommand } from "./support.ts";

const importPools = (argv: string[]): ReturnType<typeof runCommand> => runCommand(["import-pools", ...argv]);

describe("import-pools", () => {
  const dir = mkdtempSync(join(tmpdir(), "import-pools-"));
  const metallb = join(dir, "metallb.yaml");
  const kubevip = join(dir, "kubevip.yaml");
  writeFileSync(metallb, METALLB_YAML);
  writeFileSync(kubevip, KUBE_VIP_YAML);

  test("MetalLB and kube-vip examples: printed, accepted by the API server, read back unchanged", async () => {
    const result = await importPools([metallb, kubevip]);
    expect(result).toMatchObject({ code: 0, err: "" });
    expect(result.out).toContain("# L2Advertisement example");
    const printed = [Bun.YAML.parse(result.out)].flat() as (KubeObject & { spec: unknown })[];
    expect(printed.map((p) => p.metadata.name)).toEqual([
      "cheap",
      "expensive",
      "tenant",
      "pinned",
      "kubevip-default",
      "kubevip-development",
      "kubevip-global",
    ]);
    const { admin } = await controlPlane();
    try {
      for (const pool of printed) await admin.create(ADDRESS_POOLS, pool);
      for (const pool of printed) {
        const stored = await admin.get<KubeObject & { spec: unknown }>(ADDRESS_POOLS, pool.metadata.name);
        // The schema's defaults (autoAssign: true, ...) fill in what the import left out.
        expect({ name: pool.metadata.name, spec: stored.spec }).toMatchObject({
          name: pool.metadata.name,
          spec: pool.spec,
        });
      }
    } finally {
      // Open pools would serve other tests' Services: never leave them behind.
      for (const pool of printed) await admin.delete(ADDRESS_POOLS, pool.metadata.name).catch(() => undefined);
    }
  }, 120_000);

  test("bad input exits 2 with one line naming the file", async () => {
    const bad = join(dir, "bad.yaml");
    writeFileSync(bad, "a: [\n");
    const missing = await importPools([join(dir, "missing.yaml")]);
    expect(missing.code).toBe(2);
    expect(missing.err).toStartWith(`error: ${join(dir, "missing.yaml")}: `);
    expect((await importPools([bad])).err).toStartWith(`error: ${bad}: `);
    const none = join(dir, "none.yaml");
    writeFileSync(none, "apiVersion: v1\nkind: ConfigMap\nmetadata: { name: other }\n");
    expect(await importPools([none])).toMatchObject({
      code: 2,
      err: `error: no MetalLB IPAddressPool or kubevip ConfigMap in ${none}\n`,
    });
    expect(await importPools([])).toMatchObject({ code: 2 });
  });
});
