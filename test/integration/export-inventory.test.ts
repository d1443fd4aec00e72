/**
 * `export-inventory` round trip: a file inventory, converted by the command, is accepted by the real API
 * server's BareMetalMachine schema (its CEL rules included) and read back unchanged.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { KubeObject } from "../../src/kube/objects.ts";
import { BARE_METAL_MACHINES } from "../../providers/baremetal/machine-crd.ts";
import { controlPlane } from "../harness/control-plane.ts";
import { uniqueName } from "../harness/fixtures.ts";
import { runCommand } from "../../src/cli/run-cli.test-support.ts";

describe("export-inventory", () => {
  const dir = mkdtempSync(join(tmpdir(), "export-inventory-"));
  const prefix = uniqueName("exp");

  test("a file's machines: printed, accepted by the API server, read back unchanged", async () => {
    const file = join(dir, "cloud.yaml");
    writeFileSync(
      file,
      `inventory:
  racks: [{ name: r1, zone: dc1-a }]
  machines:
    - { name: ${prefix}-1, rack: r1, addresses: [{ type: InternalIP, address: 10.0.0.11 }], labels: { example.com/a: b } }
    - name: ${prefix}-2
      providerID: "baremetal://SN-${prefix}"
      bmc: { address: "redfish://10.0.9.12/redfish/v1/Systems/1", credentialsName: w2-bmc, disableCertificateVerification: true }
    - { pattern: "${prefix}-edge-*", rack: r1 }
    - { name: ${prefix}-3, shutdown: true }
    - { name: ${prefix}-4, decommissioned: true }
`,
    );
    const result = await runCommand(["export-inventory", file]);
    expect(result).toMatchObject({ code: 0, err: "" });
    expect(result.out).toContain(
      "# then, in each replica's cloud-config, replace inventory.machines by source: cluster",
    );
    const printed = [Bun.YAML.parse(result.out)].flat() as (KubeObject & { spec: unknown })[];
    expect(printed).toHaveLength(5);
    const { admin } = await controlPlane();
    try {
      for (const machine of printed) await admin.create(BARE_METAL_MACHINES, machine);
      for (const machine of printed) {
        const stored = await admin.get<KubeObject & { spec: unknown }>(BARE_METAL_MACHINES, machine.metadata.name);
        expect(stored.spec).toEqual(machine.spec);
      }
    } finally {
      for (const machine of printed)
        await admin.delete(BARE_METAL_MACHINES, machine.metadata.name).catch(() => undefined);
    }
  }, 120_000);

  test("a cloud-config that is invalid or already reads the cluster exits 2 with one line", async () => {
    const cluster = join(dir, "cluster.yaml");
    writeFileSync(cluster, "inventory: { source: cluster }\n");
    expect(await runCommand(["export-inventory", cluster])).toMatchObject({
      code: 2,
      err: `error: ${cluster}: inventory.source is already cluster: the machines are BareMetalMachine objects\n`,
    });
    expect((await runCommand(["export-inventory", join(dir, "missing.yaml")])).code).toBe(2);
  });
});
