/**
 * Zones from tags against vcsim, as upstream's GetZoneByProviderID: both categories or neither, one chain
 * (host, else resource pool, else the VM's folders) carrying a tag of each, else an error. Its own
 * simulator: tags attached here would otherwise change what vcsim.test.ts sees.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { InstanceNotFoundError } from "../../src/cloud/errors.ts";
import type { InstancesV2 } from "../../src/cloud/provider.ts";
import type { Vcsim, VcsimVm } from "../../test/harness/vcsim.ts";
import { nodeOf, vcsimProvider, vcsimSession } from "./fixtures.test-support.ts";

describe("vsphere zones against vcsim", () => {
  // Only ancestry and tag names are cached, never tags: each test sees the tags attached before it.
  const session = vcsimSession({
    inventory: { hosts: 1, vms: 2 },
    extra: "labels:\n  zone: k8s-zone\n  region: k8s-region",
  });
  let sim: Vcsim;
  let vm: VcsimVm;
  let instances: InstancesV2;
  beforeAll(() => {
    ({ sim, instances } = session);
    vm = sim.vms[0] as VcsimVm;
  });

  test("a region tag missing everywhere: metadata is an error (the node stays uninitialised), not empty labels", async () => {
    await sim.tag({ type: "Folder", id: vm.folder }, "k8s-zone", "zone-folder");
    const metadata = instances.instanceMetadata(nodeOf(vm));
    await expect(metadata).rejects.toThrow("no tag in the region category k8s-region");
    await expect(metadata).rejects.not.toBeInstanceOf(InstanceNotFoundError);
  });

  test("the zone tag on the VM's folder is found when neither host nor resource pool chain has both", async () => {
    await sim.tag({ type: "Datacenter", id: vm.datacenter }, "k8s-region", "region-1");
    const metadata = await instances.instanceMetadata(nodeOf(vm));
    expect([metadata?.zone, metadata?.region]).toEqual(["zone-folder", "region-1"]);
  });

  test("the resource pool's chain comes before the folders'", async () => {
    await sim.tag({ type: "ResourcePool", id: vm.resourcePool }, "k8s-zone", "zone-pool");
    const metadata = await instances.instanceMetadata(nodeOf(vm));
    expect([metadata?.zone, metadata?.region]).toEqual(["zone-pool", "region-1"]);
  });

  test("only the zone category configured: neither zone nor region, as upstream", async () => {
    const zoneOnly = vcsimProvider(sim, "labels:\n  zone: k8s-zone");
    try {
      const metadata = await zoneOnly.instances?.instanceMetadata(nodeOf(vm));
      expect([metadata?.zone, metadata?.region]).toEqual(["", ""]);
    } finally {
      await zoneOnly.close?.();
    }
  });
});
