import { describe, expect, test } from "bun:test";
import { parseBaremetalConfig } from "./config.ts";
import { node } from "./fixtures.test-support.ts";
import { judgeNode } from "./inventory.ts";
import { exportInventory } from "./inventory-export.ts";
import { machinesFromObjects } from "./machine-objects.ts";

const FILE = `
inventory:
  defaults: { region: dc1 }
  racks: [{ name: r1, zone: dc1-a }]
  machines:
    - { name: worker-1, rack: r1, addresses: [{ type: InternalIP, address: 10.0.0.11 }] }
    - { name: worker-2, providerID: "baremetal://SN-4711", bmc: { address: "redfish://10.0.9.12/redfish/v1/Systems/1", credentialsName: w2-bmc } }
    - { pattern: "edge-*", rack: r1, labels: { example.com/role: edge } }
    - { pattern: "edge-1?", zone: never-reached }
    - { name: old-3, decommissioned: true }
  unmatchedNodes: delete
`;

describe("export-inventory: BareMetalMachine objects from a cloud-config", () => {
  const cases: { name: string; text: string; want: Record<string, unknown>[] | RegExp }[] = [
    {
      name: "name entries are named after their node; patterns numbered in file order; specs as written",
      text: FILE,
      want: [
        {
          metadata: { name: "worker-1" },
          spec: { rack: "r1", addresses: [{ type: "InternalIP", address: "10.0.0.11" }] },
        },
        {
          metadata: { name: "worker-2" },
          spec: {
            providerID: "baremetal://SN-4711",
            bmc: { address: "redfish://10.0.9.12/redfish/v1/Systems/1", credentialsName: "w2-bmc" },
          },
        },
        { metadata: { name: "pattern-01-edge-x" }, spec: { pattern: "edge-*", rack: "r1" } },
        { metadata: { name: "pattern-02-edge-1x" }, spec: { pattern: "edge-1?", zone: "never-reached" } },
        { metadata: { name: "old-3" }, spec: { decommissioned: true } },
      ],
    },
    { name: "no machines: no objects", text: "inventory: { defaults: { region: dc1 } }", want: [] },
    { name: "an invalid file is refused, with its problems", text: "inventory: { machines: [{}] }", want: /name/ },
    {
      name: "a cluster inventory has nothing to export",
      text: "inventory: { source: cluster }",
      want: /already cluster/,
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const result = exportInventory(c.text);
      if (c.want instanceof RegExp) {
        expect("errors" in result && result.errors.join("\n")).toMatch(c.want);
        return;
      }
      if ("errors" in result) throw new Error(result.errors.join("\n"));
      expect(result.objects).toMatchObject(c.want);
      expect(result.objects.every((o) => o.kind === "BareMetalMachine")).toBe(true);
    });
  }

  test("the objects, with the file's layers, say what the file said about every node", () => {
    const result = exportInventory(FILE);
    if ("errors" in result) throw new Error(result.errors.join("\n"));
    const file = parseBaremetalConfig(FILE);
    const cluster = parseBaremetalConfig(FILE.replace(/ {2}machines:\n( {4}- .*\n)+/, "  source: cluster\n"));
    if (!file.ok || !cluster.ok) throw new Error("fixture does not parse");
    // Created in the same second: counted in name order, as the numbering intends.
    const stamp = "2026-01-01T00:00:00Z";
    const objects = result.objects.map((o) => ({ ...o, metadata: { ...o.metadata, creationTimestamp: stamp } }));
    const set = machinesFromObjects(cluster.config.inventory, objects);
    expect(set.verdicts.flatMap((v) => v.problems)).toEqual([]);
    for (const name of ["worker-1", "worker-2", "edge-7", "edge-12", "old-3", "stranger"])
      expect(judgeNode(set.inventory, node(name))).toEqual(judgeNode(file.config.inventory, node(name)));
  });
});
