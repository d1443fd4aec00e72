import { describe, expect, test } from "bun:test";
import type { Node } from "../../src/kube/objects.ts";
import type { VSphereApi } from "./api.ts";
import { parseVSphereConfig } from "./config.ts";
import { vsphereInstances } from "./instances.ts";
import { createVmLookup } from "./lookup.ts";
import { byteSwapUuid } from "./node-identity.ts";
import { readVmDetails, readVmSummaries } from "./queries.ts";
import type { ObjectContent } from "./soap-xml.ts";

const UUID = "42163b8a-1c2d-4e5f-8a9b-0123456789ab";
const DC = { ref: { type: "Datacenter", value: "dc-1" }, name: "DC0", path: "DC0" };

const parsed = parseVSphereConfig("global:\n  user: u\n  password: p\nvcenter:\n  vc:\n    server: vc\n");
if (!parsed.ok) throw new Error(parsed.errors.join("; "));
const CONFIG = parsed.config;

/** A VM as the property collector answers it; `uuid` undefined: `config` unreadable (files unreachable). */
const vmObject = (uuid: string | undefined): ObjectContent => ({
  obj: { type: "VirtualMachine", value: "vm-1" },
  props: new Map<string, unknown>([
    ["name", "n1"],
    ["runtime.powerState", "poweredOn"],
    ...(uuid === undefined ? [] : [["config.uuid", uuid] as [string, unknown]]),
  ]),
  missing: [],
});

/** A vCenter holding `objects`, read through the provider's own readers. */
function apiOf(objects: readonly ObjectContent[]): VSphereApi {
  return {
    datacenters: () => Promise.resolve([DC]),
    listVirtualMachines: () => Promise.resolve(readVmSummaries(objects)),
    describeVirtualMachines: () => Promise.resolve(readVmDetails(objects)),
    ancestry: () => Promise.resolve([]),
    attachedTags: () => Promise.resolve(new Map()),
    tag: () => Promise.resolve({ name: "", categoryId: "" }),
    categoryName: () => Promise.resolve(""),
    serviceContent: () => Promise.reject(new Error("not used")),
    close: () => Promise.resolve(),
  };
}

const instancesOf = (objects: readonly ObjectContent[]) =>
  vsphereInstances(CONFIG, createVmLookup({ api: apiOf(objects), datacenters: [] }));

const node = (providerID: string): Node => ({
  apiVersion: "v1",
  kind: "Node",
  metadata: { name: "n1" },
  spec: { providerID },
  status: {},
});

describe("instance existence, as the lifecycle controller asks it", () => {
  test("a providerID holding the byte-swapped UUID is the VM (upstream retries swapped): never deleted", async () => {
    const instances = instancesOf([vmObject(UUID)]);
    expect(await instances.instanceExists(node(`vsphere://${byteSwapUuid(UUID)}`))).toBe(true);
  });

  test("a providerID naming no VM, all VMs readable: does not exist", async () => {
    const instances = instancesOf([vmObject(UUID)]);
    expect(await instances.instanceExists(node("vsphere://42160000-0000-0000-0000-000000000000"))).toBe(false);
  });
});
