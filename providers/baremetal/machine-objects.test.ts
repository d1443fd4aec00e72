import { describe, expect, test } from "bun:test";
import { parseBaremetalConfig } from "./config.ts";
import { node, WORKER_1_IN_RACK_R1 } from "./fixtures.test-support.ts";
import { judgeNode, type Inventory, type UnmatchedPolicy } from "./inventory.ts";
import { machinesFromObjects, type MachineObject } from "./machine-objects.ts";

function base(unmatched: UnmatchedPolicy = "delete"): Inventory {
  const parsed = parseBaremetalConfig(`
inventory:
  source: cluster
  defaults: { region: dc1, zone: dc1-a, instanceType: metal }
  racks: [{ name: r1, zone: dc1-b }]
  unmatchedNodes: ${unmatched}
`);
  if (!parsed.ok) throw new Error(parsed.errors.join("; "));
  return parsed.config.inventory;
}

let second = 0;
function machine(name: string, spec: Record<string, unknown> = {}): MachineObject {
  const created = new Date(Date.UTC(2026, 0, 1, 0, 0, second++)).toISOString();
  return { metadata: { name, creationTimestamp: created }, spec };
}

describe("the inventory from BareMetalMachine objects", () => {
  const cases: {
    name: string;
    objects: MachineObject[];
    node: ReturnType<typeof node>;
    want: Record<string, unknown>;
    problems?: RegExp[];
  }[] = [
    {
      name: "an object names the node it is named after, layered on the file's rack and defaults",
      objects: [machine("worker-1", { rack: "r1", addresses: [{ type: "InternalIP", address: "10.0.0.11" }] })],
      node: node("worker-1"),
      want: WORKER_1_IN_RACK_R1,
    },
    {
      name: "spec.name and an explicit providerID, found by providerID under another node name",
      objects: [machine("sn-4711", { name: "worker-2", providerID: "baremetal://SN-4711" })],
      node: node("renamed", { providerID: "baremetal://SN-4711" }),
      want: { kind: "present", metadata: { providerID: "baremetal://SN-4711" } },
    },
    {
      name: "a pattern object",
      objects: [machine("edge", { pattern: "edge-*", instanceType: "metal.edge" })],
      node: node("edge-7"),
      want: { kind: "present", metadata: { instanceType: "metal.edge" } },
    },
    {
      name: "shutdown: true is the shutdown state",
      objects: [machine("db-1", { shutdown: true })],
      node: node("db-1"),
      want: { kind: "present", shutdown: true },
    },
    {
      name: "decommissioned: gone, as in the file",
      objects: [machine("old-3", { decommissioned: true })],
      node: node("old-3"),
      want: { kind: "absent" },
    },
    {
      name: "no object names the node: the file's unmatchedNodes rule (delete here)",
      objects: [machine("worker-1")],
      node: node("stranger"),
      want: { kind: "absent" },
    },
    {
      name: "an unreadable object holds its node: unknown, never gone (even under unmatchedNodes: delete)",
      objects: [machine("worker-3", { rack: "r9" })],
      node: node("worker-3"),
      want: { kind: "unknown", reason: expect.stringContaining('no rack named "r9"') as unknown },
      problems: [/spec.rack: no rack named "r9"/],
    },
    {
      name: "an unreadable object with spec.name holds that node",
      objects: [machine("sn-1", { name: "worker-4", labels: { "kubernetes.io/role": "x" } })],
      node: node("worker-4"),
      want: { kind: "unknown" },
      problems: [/under kubernetes.io or k8s.io/],
    },
    {
      name: "an unreadable pattern holds the nodes it matches, before readable patterns",
      objects: [machine("all", { pattern: "edge-*" }), machine("bad", { pattern: "edge-1*", zone: "-bad-" })],
      node: node("edge-17"),
      want: { kind: "unknown" },
      problems: [/spec.zone: label value "-bad-"/],
    },
    {
      name: "a readable exact name wins over an unreadable pattern",
      objects: [machine("edge-5"), machine("bad", { pattern: "edge-*", instanceType: "-x-" })],
      node: node("edge-5"),
      want: { kind: "present" },
      problems: [/spec.instanceType/],
    },
    {
      name: "a newer object naming the same node is refused; the older stays in force",
      objects: [machine("a", { name: "worker-5", zone: "old" }), machine("b", { name: "worker-5", zone: "new" })],
      node: node("worker-5"),
      want: { kind: "present", metadata: { zone: "old" } },
      problems: [/node worker-5 is already named by BareMetalMachine a, which is older/],
    },
    {
      name: "a newer object reusing a providerID is refused and holds its own node",
      objects: [
        machine("a", { providerID: "baremetal://SN-1" }),
        machine("b", { providerID: "baremetal://SN-1", decommissioned: true }),
      ],
      node: node("b"),
      want: { kind: "unknown" },
      problems: [/providerID baremetal:\/\/SN-1 is already used by BareMetalMachine a/],
    },
  ];

  for (const c of cases) {
    test(c.name, () => {
      const set = machinesFromObjects(base(), c.objects);
      expect(judgeNode(set.inventory, c.node)).toMatchObject(c.want);
      const problems = set.verdicts.flatMap((v) => v.problems);
      expect(problems).toHaveLength(c.problems?.length ?? 0);
      c.problems?.forEach((p, i) => expect(problems[i]).toMatch(p));
    });
  }

  test("an edit that cannot be read keeps the last readable version in force", () => {
    const good = machine("worker-6", { shutdown: true });
    const first = machinesFromObjects(base(), [good]);
    const broken = { ...good, spec: { shutdown: true, rack: "r9" } };
    const next = machinesFromObjects(base(), [broken], first.readable);
    expect(judgeNode(next.inventory, node("worker-6"))).toMatchObject({ kind: "present", shutdown: true });
    expect(next.verdicts[0]).toMatchObject({ keptEarlier: true });
    expect(next.readable.get("worker-6")).toBe(first.readable.get("worker-6"));
    // Deleted: forgotten, and the node is unmatched again.
    expect(machinesFromObjects(base(), [], next.readable).readable.size).toBe(0);
  });

  test("until the objects are read, every node is unknown", () => {
    expect(judgeNode({ ...base(), unread: "not read yet" }, node("x"))).toEqual({
      kind: "unknown",
      reason: "not read yet",
    });
  });
});

describe("inventory.source in the cloud-config", () => {
  const cases: { name: string; text: string; errors?: RegExp }[] = [
    { name: "file is the default", text: "inventory: { machines: [{ name: a }] }" },
    { name: "cluster with layers and policy", text: "inventory: { source: cluster, racks: [{ name: r1 }] }" },
    {
      name: "cluster refuses machines",
      text: "inventory: { source: cluster, machines: [{ name: a }] }",
      errors: /inventory.machines: source: cluster reads BareMetalMachine objects/,
    },
    {
      name: "an unknown source",
      text: "inventory: { source: etcd }",
      errors: /inventory.source: must be file or cluster/,
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const parsed = parseBaremetalConfig(c.text);
      const errors = parsed.ok ? [] : parsed.errors;
      if (c.errors) expect(errors.some((e) => c.errors?.test(e))).toBe(true);
      else expect(errors).toEqual([]);
    });
  }
});
