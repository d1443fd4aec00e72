/**
 * Real kubelets v1.36 (`--cloud-provider=external`) initialised by the compiled manager with
 * `--cloud-provider=baremetal`: metadata from the machine inventory, the kubelet's own addresses kept for a
 * machine that lists none, and a node no machine matches left alone. Skipped, with the reason printed, on
 * a machine that cannot run containerd or lacks the packages (.ci/run installs them).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseBaremetalConfig } from "../../providers/baremetal/index.ts";
import type { Node, NodeAddress } from "../../src/kube/objects.ts";
import { TAINT_UNINITIALIZED } from "../../src/kube/well-known.ts";
import { address, getNode } from "../integration/nodes.ts";
import { uniqueName } from "../harness/fixtures.ts";
import { hostNodeIPs, KUBELET_HOOK_TIMEOUT_MS, kubeletSupport } from "../harness/kubelet.ts";
import {
  cloudLabels,
  expectKubeletRegistration,
  managedFields,
  startKubeletBed,
  syncedEvents,
  waitForKubeletWrites,
  waitInitialised,
  type KubeletBed,
} from "../harness/kubelet-nodes.ts";
import { managerFlags } from "../harness/ccm.ts";

const support = await kubeletSupport();
const { ipv4 = "" } = hostNodeIPs();
const title = "real kubelets with the compiled manager and the baremetal provider";
const RACK = "baremetal.cloudprovider.io/rack";

describe.skipIf(!support.ok)(support.ok ? title : `${title} (skipped: ${support.reason})`, () => {
  let bed: KubeletBed;
  const named = uniqueName("bmk-named");
  const racked = uniqueName("bmk-rack");
  const stray = uniqueName("bmk-stray");

  beforeAll(async () => {
    const yaml = `
inventory:
  defaults: { region: dc-k, instanceType: metal }
  racks:
    - { name: r1, zone: dc-k-a, labels: { example.com/power-feed: a } }
  machines:
    - name: ${named}
      rack: r1
      instanceType: metal.large
      addresses: [{ type: InternalIP, address: "${ipv4}" }, { type: ExternalIP, address: 198.51.100.201 }]
    - { pattern: "${racked.replace(/-\d+$/, "")}-*", rack: r1 }
  unmatchedNodes: leave
`;
    const parsed = parseBaremetalConfig(yaml);
    if (!parsed.ok) throw new Error(`bad inventory: ${parsed.errors.join("; ")}`);
    const config = join(mkdtempSync(join(tmpdir(), "baremetal-kubelet-")), "cloud.yaml");
    writeFileSync(config, yaml);
    bed = await startKubeletBed();
    const ccm = bed.startManager([
      ...managerFlags(bed.cp.kubeconfigs.ccm, "baremetal", config),
      "--configure-cloud-routes=false",
      "--controllers=cloud-node-controller,cloud-node-lifecycle-controller",
    ]);
    await ccm.waitForLine(/caches synced/, 60_000);
  }, KUBELET_HOOK_TIMEOUT_MS);

  afterAll(async () => {
    await bed?.stop();
  });

  /** Initialised from the inventory: providerID, no taint, these labels and addresses, one Synced event. */
  const expectInitialised = async (
    name: string,
    addresses: NodeAddress[],
    labels: Record<string, string>,
  ): Promise<Node> => {
    const node = await waitInitialised(bed.cp, name, addresses);
    expect(node.spec?.providerID).toBe(`baremetal://${name}`);
    expect(node.spec?.taints ?? []).toEqual([]);
    expect(node.metadata.labels).toMatchObject(labels);
    expect(node.status?.addresses).toEqual(addresses);
    const synced = await syncedEvents(bed.cp, name);
    expect(synced).toHaveLength(1);
    return node;
  };

  test("kubelet-registered nodes get the inventory's providerID, labels and addresses; an unlisted node is left alone", async () => {
    await Promise.all([named, racked, stray].map((name) => bed.addKubelet(name, [ipv4])));
    for (const name of [named, racked, stray]) await expectKubeletRegistration(bed.history, name, [ipv4]);
    const listed = [address("InternalIP", ipv4), address("ExternalIP", "198.51.100.201"), address("Hostname", named)];
    const first = await expectInitialised(named, listed, {
      ...cloudLabels("dc-k-a", "dc-k", "metal.large"),
      [RACK]: "r1",
      "example.com/power-feed": "a",
    });
    // A machine without addresses keeps the kubelet's own (its --node-ip and hostname).
    await expectInitialised(racked, [address("InternalIP", ipv4), address("Hostname", racked)], {
      ...cloudLabels("dc-k-a", "dc-k", "metal"),
      [RACK]: "r1",
    });

    const since = Date.now();
    await waitForKubeletWrites(bed.cp, stray, since, 2);
    await waitForKubeletWrites(bed.cp, named, since, 2);
    const left = await getNode(bed.cp, stray);
    expect(left?.spec?.taints?.map((t) => t.key)).toEqual([TAINT_UNINITIALIZED]);
    expect(left?.spec?.providerID).toBeUndefined();
    expect(managedFields(await getNode(bed.cp, named))).toEqual(managedFields(first));
  });
});
