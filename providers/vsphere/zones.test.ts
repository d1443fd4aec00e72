import { describe, expect, test } from "bun:test";
import { refKey, type EntityParent, type VmDetails } from "./queries.ts";
import type { MoRef } from "./soap-xml.ts";
import { topologyChains, topologyOf, type TagsOf } from "./zones.ts";

const ref = (type: string, value: string): MoRef => ({ type, value });
const ROOT = ref("Folder", "root");
const DC = ref("Datacenter", "dc");
const CLUSTER = ref("ClusterComputeResource", "cluster");
const HOST = ref("HostSystem", "host");
const POOL = ref("ResourcePool", "pool");
const FOLDER = ref("Folder", "vms");
const VM = ref("VirtualMachine", "vm");

const PARENTS = new Map<string, EntityParent>(
  [
    [DC, ROOT],
    [CLUSTER, DC],
    [HOST, CLUSTER],
    [POOL, CLUSTER],
    [FOLDER, DC],
  ].map(([child, parent]) => [refKey(child as MoRef), { ref: child as MoRef, name: "", parent }]),
);
const VM_DETAILS = { ref: VM, host: HOST, resourcePool: POOL, parent: FOLDER } as VmDetails;
const CHAINS = topologyChains(VM_DETAILS, PARENTS);
const CATEGORIES = { zone: "k8s-zone", region: "k8s-region" };

/** Tags as `[object, category, name]`. */
function tagged(...tags: [MoRef, string, string][]): TagsOf {
  const attached = new Map<string, string[]>();
  tags.forEach(([obj, , name]) => attached.set(refKey(obj), [...(attached.get(refKey(obj)) ?? []), name]));
  return { attached, tags: new Map(tags.map(([, category, name]) => [name, { name, category }])) };
}

describe("zone and region from tags (upstream's chains)", () => {
  test("the chains: host and parents, pool and parents, the VM and its folders", () => {
    expect(CHAINS.map((chain) => chain.map((r) => r.value))).toEqual([
      ["host", "cluster", "dc", "root"],
      ["pool", "cluster", "dc", "root"],
      ["vm", "vms", "dc", "root"],
    ]);
  });

  test.each<[string, TagsOf, string]>([
    [
      "host chain, nearest tag wins",
      tagged([HOST, "k8s-zone", "z-host"], [CLUSTER, "k8s-zone", "z-cl"], [DC, "k8s-region", "r"]),
      "z-host/r",
    ],
    [
      "pool chain when the host chain lacks the zone",
      tagged([POOL, "k8s-zone", "z-pool"], [DC, "k8s-region", "r"]),
      "z-pool/r",
    ],
    [
      "folder chain when neither host nor pool has one",
      tagged([FOLDER, "k8s-zone", "z-f"], [DC, "k8s-region", "r"]),
      "z-f/r",
    ],
    [
      "tags of other categories do not count",
      tagged([HOST, "other", "x"], [HOST, "k8s-zone", "z"], [DC, "k8s-region", "r"]),
      "z/r",
    ],
    [
      "region missing everywhere: an error naming it",
      tagged([HOST, "k8s-zone", "z"]),
      "error: no tag in the region category k8s-region",
    ],
    [
      "nothing tagged: an error naming both",
      tagged(),
      "error: no tag in the zone category k8s-zone or the region category k8s-region",
    ],
    [
      "zone and region only on different chains: an error",
      tagged([HOST, "k8s-zone", "z"], [FOLDER, "k8s-region", "r"]),
      "error: the tags in the zone category k8s-zone and the region category k8s-region are not both on one",
    ],
  ])("%s", (_title, known, expected) => {
    const found = topologyOf(CHAINS, known, CATEGORIES);
    const outcome = typeof found === "string" ? `error: ${found}` : `${found.zone}/${found.region}`;
    expect(outcome).toStartWith(expected);
  });
});
