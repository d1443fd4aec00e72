import { describe, expect, test } from "bun:test";
import { InstanceNotFoundError } from "../../src/cloud/errors.ts";
import { parseBaremetalConfig } from "./config.ts";
import { node, WORKER_1_IN_RACK_R1 } from "./fixtures.test-support.ts";
import { inventoryInstances } from "./instances.ts";
import { judgeNode, type Inventory, type UnmatchedPolicy } from "./inventory.ts";

function inventory(unmatched: UnmatchedPolicy = "leave"): Inventory {
  const parsed = parseBaremetalConfig(`
inventory:
  defaults: { region: dc1, zone: dc1-a, instanceType: metal }
  racks: [{ name: r1, zone: dc1-b }]
  machines:
    - { name: worker-1, rack: r1, addresses: [{ type: InternalIP, address: 10.0.0.11 }] }
    - { name: worker-2, providerID: "baremetal://serial-42" }
    - { name: edge-special, instanceType: metal.edge }
    - { pattern: "edge-*", rack: r1 }
    - { pattern: "edge-1?", zone: never-reached }
    - { name: old-3, decommissioned: true }
    - { name: db-1, shutdown: true }
  unmatchedNodes: ${unmatched}
`);
  if (!parsed.ok) throw new Error(parsed.errors.join("; "));
  return parsed.config.inventory;
}

describe("what the inventory says about a node", () => {
  const cases: {
    name: string;
    node: ReturnType<typeof node>;
    policy?: UnmatchedPolicy;
    want: Record<string, unknown>;
  }[] = [
    {
      name: "an exact name, with its rack's traits and label",
      node: node("worker-1"),
      want: WORKER_1_IN_RACK_R1,
    },
    {
      name: "an explicit providerID",
      node: node("worker-2"),
      want: { kind: "present", metadata: { providerID: "baremetal://serial-42" } },
    },
    {
      name: "found by its explicit providerID under another node name",
      node: node("renamed", { providerID: "baremetal://serial-42" }),
      want: { kind: "present", metadata: { providerID: "baremetal://serial-42" } },
    },
    {
      name: "found by a baremetal:// providerID built from the name",
      node: node("other-name", { providerID: "baremetal://worker-1" }),
      want: { kind: "present", metadata: { providerID: "baremetal://worker-1", zone: "dc1-b" } },
    },
    {
      name: "a foreign providerID falls back to the node name",
      node: node("worker-1", { providerID: "kind://docker/worker-1" }),
      want: { kind: "present", metadata: { zone: "dc1-b" } },
    },
    {
      name: "exact names win over patterns",
      node: node("edge-special"),
      want: { kind: "present", metadata: { instanceType: "metal.edge", zone: "dc1-a" } },
    },
    {
      name: "the first matching pattern, with providerID from the node name",
      node: node("edge-17"),
      want: { kind: "present", metadata: { providerID: "baremetal://edge-17", zone: "dc1-b" } },
    },
    {
      name: "a decommissioned machine is gone",
      node: node("old-3"),
      want: { kind: "absent", reason: "machine old-3 is decommissioned in the inventory" },
    },
    {
      name: "a machine powered off is shut down, not gone",
      node: node("db-1"),
      want: { kind: "present", shutdown: true },
    },
    { name: "unmatched, leave: left alone", node: node("stranger"), want: { kind: "unlisted" } },
    {
      name: "unmatched, initialize: the defaults",
      node: node("stranger"),
      policy: "initialize",
      want: {
        kind: "present",
        metadata: {
          providerID: "baremetal://stranger",
          zone: "dc1-a",
          region: "dc1",
          instanceType: "metal",
          additionalLabels: {},
        },
      },
    },
    {
      name: "unmatched, delete: gone",
      node: node("stranger"),
      policy: "delete",
      want: { kind: "absent", reason: "node stranger matches no machine in the inventory (unmatchedNodes: delete)" },
    },
    {
      name: "delete never touches listed machines",
      node: node("worker-1"),
      policy: "delete",
      want: { kind: "present" },
    },
    {
      name: "no listed addresses: the kubelet's own, plus --node-ip, so the node-IP check passes",
      node: {
        ...node("edge-3"),
        metadata: { name: "edge-3", annotations: { "alpha.kubernetes.io/provided-node-ip": "10.9.0.3,fd00::3" } },
        status: {
          addresses: [
            { type: "InternalIP", address: "10.9.0.3" },
            { type: "Hostname", address: "edge-3" },
          ],
        },
      },
      want: {
        kind: "present",
        metadata: {
          nodeAddresses: [
            { type: "InternalIP", address: "fd00::3" },
            { type: "InternalIP", address: "10.9.0.3" },
            { type: "Hostname", address: "edge-3" },
          ],
        },
      },
    },
    {
      name: "listed addresses win over the kubelet's",
      node: { ...node("worker-1"), status: { addresses: [{ type: "InternalIP", address: "10.9.9.9" }] } },
      want: { kind: "present", metadata: { nodeAddresses: [{ type: "InternalIP", address: "10.0.0.11" }] } },
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      expect(judgeNode(inventory(c.policy), c.node)).toMatchObject(c.want);
    });
  }
});

describe("InstancesV2 from the inventory", () => {
  test("single and batched answers agree, per policy", async () => {
    for (const policy of ["leave", "initialize", "delete"] as const) {
      const instances = inventoryInstances(() => inventory(policy));
      const nodes = [node("worker-1"), node("db-1"), node("old-3"), node("stranger")];
      const states = await instances.batch!.instanceStateBatch(nodes);
      const single = await Promise.all(
        nodes.map(async (n) => ((await instances.instanceExists(n)) ? { exists: true } : { exists: false })),
      );
      expect(states.map((s) => ("value" in s ? { exists: s.value.exists } : s))).toEqual(single);
      const metas = await instances.batch!.instanceMetadataBatch(nodes);
      for (const [i, n] of nodes.entries()) {
        const one = await instances.instanceMetadata(n).then(
          (value) => ({ value }),
          (error: unknown) => ({ error }),
        );
        expect(metas[i]).toEqual(one as never);
      }
    }
  });

  test("leave: an unlisted node exists, is not shut down, and is not initialised", async () => {
    const instances = inventoryInstances(() => inventory("leave"));
    expect(await instances.instanceExists(node("stranger"))).toBe(true);
    expect(await instances.instanceShutdown(node("stranger"))).toBe(false);
    expect(await instances.instanceMetadata(node("stranger"))).toBeUndefined();
  });

  test("a decommissioned machine: does not exist, and metadata is InstanceNotFoundError", async () => {
    const instances = inventoryInstances(() => inventory());
    expect(await instances.instanceExists(node("old-3"))).toBe(false);
    expect(await instances.instanceMetadata(node("old-3")).catch((e: unknown) => e)).toBeInstanceOf(
      InstanceNotFoundError,
    );
    expect(await instances.instanceShutdown(node("old-3")).catch((e: unknown) => e)).toBeInstanceOf(
      InstanceNotFoundError,
    );
    expect(await instances.instanceShutdown(node("db-1"))).toBe(true);
  });

  test("answers follow the current inventory", async () => {
    let current = inventory("leave");
    const instances = inventoryInstances(() => current);
    expect(await instances.instanceExists(node("stranger"))).toBe(true);
    current = inventory("delete");
    expect(await instances.instanceExists(node("stranger"))).toBe(false);
  });
});
