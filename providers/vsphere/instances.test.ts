import { describe, expect, test } from "bun:test";
import type { InstancesV2 } from "../../src/cloud/provider.ts";
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

/** A vCenter holding `objects` (read at each call), through the provider's own readers. */
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

/** Instances over `objects`; the clock ticks at each reading, so a scan asked for after another is fresh. */
function instancesOf(objects: readonly ObjectContent[]): InstancesV2 {
  let tick = 0;
  const now = (): number => ++tick;
  return vsphereInstances(CONFIG, createVmLookup({ api: apiOf(objects), datacenters: [], now }));
}

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

describe("a VM whose config vSphere cannot read (files unreachable, or being created)", () => {
  test("a providerID naming no readable VM: unknown (an error), never 'does not exist'", async () => {
    const instances = instancesOf([vmObject(undefined)]);
    await expect(instances.instanceExists(node(`vsphere://${UUID}`))).rejects.toThrow("no readable config");
  });

  test("a VM found, then unreadable when its details are asked: unknown, never 'does not exist'", async () => {
    const objects = [vmObject(UUID)];
    const instances = instancesOf(objects);
    expect(await instances.instanceExists(node(`vsphere://${UUID}`))).toBe(true);
    objects[0] = vmObject(undefined);
    await expect(instances.instanceExists(node(`vsphere://${UUID}`))).rejects.toThrow("no readable config");
  });
});
