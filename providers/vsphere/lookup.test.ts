import { describe, expect, test } from "bun:test";
import type { Node } from "../../src/kube/objects.ts";
import { buildIndex, incompleteScan, matchVm } from "./lookup.ts";
import { byteSwapUuid, nodeKeys } from "./node-identity.ts";
import type { VmSummary } from "./queries.ts";

const vm = (n: number, extra: Partial<VmSummary> = {}): VmSummary => ({
  ref: { type: "VirtualMachine", value: `vm-${n}` },
  name: `VM-${n}`,
  uuid: `4216${n}000-0000-0000-0000-00000000000${n}`,
  hostName: `node-${n}.example.com`,
  ips: [`10.0.0.${n}`, `fd00::${n}`, `192.168.9.${n}`],
  ...extra,
});
const INDEX = buildIndex(
  [vm(1), vm(2), vm(3, { hostName: "twin" }), vm(4, { hostName: "twin", ips: ["10.0.0.4", "10.0.0.3"] })],
  0,
);

const node = (name: string, o: { providerID?: string; systemUUID?: string; ip?: string } = {}): Node => ({
  apiVersion: "v1",
  kind: "Node",
  metadata: { name },
  spec: o.providerID ? { providerID: o.providerID } : {},
  status: {
    ...(o.systemUUID ? { nodeInfo: { systemUUID: o.systemUUID } } : {}),
    ...(o.ip ? { addresses: [{ type: "InternalIP" as const, address: o.ip }] } : {}),
  },
});

const outcome = (n: Node): string => {
  const r = matchVm(nodeKeys(n), INDEX);
  if (r.kind === "found") return r.vm.ref.value;
  return r.kind === "error" ? `error: ${r.error.message}` : r.kind;
};

describe("matching a node to its VM", () => {
  test.each([
    ["providerID wins over everything", node("node-2.example.com", { providerID: `vsphere://${vm(1).uuid}` }), "vm-1"],
    [
      "a providerID whose VM is gone is absent, with no fallback to the name",
      node("node-2.example.com", { providerID: "vsphere://gone" }),
      "absent",
    ],
    [
      "a providerID holding the byte-swapped (SMBIOS) UUID: tried swapped, as upstream, never absent",
      node("x", { providerID: `vsphere://${byteSwapUuid(vm(2).uuid)}` }),
      "vm-2",
    ],
    [
      "system UUID as Linux reports it (byte-swapped)",
      node("x", { systemUUID: byteSwapUuid(vm(2).uuid).toUpperCase() }),
      "vm-2",
    ],
    ["system UUID as given", node("x", { systemUUID: vm(2).uuid.toUpperCase() }), "vm-2"],
    ["VM name, any case", node("vm-1"), "vm-1"],
    ["guest host name", node("node-2.example.com"), "vm-2"],
    ["address when the name does not match", node("x", { ip: "10.0.0.2" }), "vm-2"],
    ["any guest IP, not only the primary one (upstream's FindByIp)", node("x", { ip: "192.168.9.2" }), "vm-2"],
    [
      "no providerID and nothing matches: unmatched (an error upstream), never absent",
      node("x", { ip: "10.9.9.9" }),
      "unmatched",
    ],
  ])("%s", (_title, n, expected) => {
    expect(outcome(n)).toBe(expected);
  });

  test("two VMs answering to one name or address: an error, never a guess", () => {
    expect(outcome(node("twin"))).toContain("error: 2 VMs match node twin");
    expect(outcome(node("x", { ip: "10.0.0.3" }))).toContain("error: 2 VMs match");
  });

  test("a providerID of another provider is an error, not absent (the node is never deleted for it)", () => {
    expect(outcome(node("x", { providerID: "aws:///us-east-1a/i-1" }))).toContain("is not a vsphere:// providerID");
  });
});

describe("whether a scan can call a VM gone", () => {
  const unreadable = (n: number): VmSummary => vm(n, { uuid: "" });
  const DC_MISSING = "configured datacenter(s) DC9 not found";
  test.each([
    ["every VM readable, every datacenter searched: definite", [vm(1), vm(2)], undefined, undefined],
    ["a configured datacenter missing: not definite", [vm(1)], DC_MISSING, DC_MISSING],
    ["a VM whose config is unreadable: not definite", [vm(1), unreadable(2)], undefined, "1 VM(s) (VM-2)"],
    ["both reasons are given", [unreadable(3)], DC_MISSING, `${DC_MISSING}; 1 VM(s) (VM-3)`],
  ])("%s", (_title, vms, searched, expected) => {
    const why = incompleteScan(vms, searched);
    if (expected === undefined) expect(why).toBeUndefined();
    else expect(why).toStartWith(expected);
  });

  test("a VM without UUID answers to no UUID, not even an empty one", () => {
    const index = buildIndex([vm(1, { uuid: "" })], 0);
    expect(index.byUuid.size).toBe(0);
  });
});
