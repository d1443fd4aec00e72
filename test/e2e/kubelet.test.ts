/**
 * Real kubelets v1.36 (`--cloud-provider=external`, containerd, each in its own mount namespace) against
 * the test control plane, with the compiled manager and the fake cloud: what kubelet registers, the
 * initialisation, kubelet's own status writes after the manager's, restarts of either, the shutdown taint,
 * dual-stack node IPs, and a machine left as it was found. Skipped, with the reason printed, on a machine
 * that cannot run containerd or lacks the packages (.ci/run installs them).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Kubelet } from "../../scripts/control-plane/kubelet.ts";
import type { Node } from "../../src/kube/objects.ts";
import { TAINT_SHUTDOWN, TAINT_UNINITIALIZED } from "../../src/kube/well-known.ts";
import { address, getNode } from "../integration/nodes.ts";
import type { CcmProcess } from "../harness/ccm.ts";
import { startFakeCloud, type TestFakeCloud } from "../harness/fake-cloud.ts";
import { KUBELET_ARCH, kubeletNode, uniqueName } from "../harness/fixtures.ts";
import { hostFootprint, type Footprint } from "../harness/host-footprint.ts";
import { hostNodeIPs, KUBELET_HOOK_TIMEOUT_MS, kubeletSupport } from "../harness/kubelet.ts";
import {
  cloudLabels,
  expectKubeletRegistration,
  isReady,
  managerEvents,
  managedFields,
  markStatusUnknown,
  startKubeletBed,
  syncedEvents,
  waitForKubeletWrites,
  waitInitialised,
  type KubeletBed,
} from "../harness/kubelet-nodes.ts";
import { nodeWrites } from "../harness/node-history.ts";
import { eventually, holds } from "../harness/wait.ts";
import { managerFlags } from "../harness/ccm.ts";

const support = await kubeletSupport();
const { ipv4 = "", ipv6 } = hostNodeIPs();
const title = "real kubelets with the compiled manager and the fake cloud";
const CCM_USER = "system:cloud-controller-manager";

describe.skipIf(!support.ok)(support.ok ? title : `${title} (skipped: ${support.reason})`, () => {
  let before: Footprint;
  let bed: KubeletBed;
  let cloud: TestFakeCloud;
  let ccm: CcmProcess;
  let external = 0;

  const managerArgs = (): string[] => [
    ...managerFlags(bed.cp.kubeconfigs.ccm, "fake", cloud.configFile),
    "--controllers=cloud-node-controller,cloud-node-lifecycle-controller",
    "--node-monitor-period=1s",
  ];

  /** A cloud instance for `name` that reports `internal` as its InternalIP(s) and an ExternalIP of its own. */
  const putInstance = (name: string, internal: readonly string[], zone = "zone-k"): string => {
    external += 1;
    const externalIP = `198.51.100.${external}`;
    const addresses = [...internal.map((ip) => address("InternalIP", ip)), address("ExternalIP", externalIP)];
    cloud.engine.putInstance(
      cloud.engine.instanceWithDefaults({ name, zone, region: "region-k", instanceType: "fake.kubelet", addresses }),
    );
    return externalIP;
  };

  /** A kubelet whose node the manager has initialised with one InternalIP, an ExternalIP and the hostname. */
  const initialisedKubelet = async (name: string): Promise<{ kubelet: Kubelet; node: Node }> => {
    const externalIP = putInstance(name, [ipv4]);
    const kubelet = await bed.addKubelet(name, [ipv4]);
    const addresses = [address("InternalIP", ipv4), address("ExternalIP", externalIP), address("Hostname", name)];
    return { kubelet, node: await waitInitialised(bed.cp, name, addresses) };
  };

  beforeAll(async () => {
    before = hostFootprint();
    cloud = startFakeCloud("autoInstances: false\n");
    bed = await startKubeletBed();
    ccm = bed.startManager(managerArgs());
    await ccm.waitForLine(/caches synced/, 60_000);
  }, KUBELET_HOOK_TIMEOUT_MS);

  afterAll(async () => {
    await bed?.stop();
    await cloud?.stop();
  });

  test("kubelets register tainted nodes that the manager initialises: providerID, labels, cloud addresses", async () => {
    const names = [uniqueName("kl"), uniqueName("kl")];
    const externals = names.map((name) => putInstance(name, [ipv4]));
    const kubelets = await Promise.all(names.map((name) => bed.addKubelet(name, [ipv4])));
    for (const [i, name] of names.entries()) {
      const registered = await expectKubeletRegistration(bed.history, name, [ipv4]);
      expect(registered.metadata.labels).toEqual({
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
        "kubernetes.io/arch": KUBELET_ARCH,
        "beta.kubernetes.io/os": "linux",
        "beta.kubernetes.io/arch": KUBELET_ARCH,
      });
      const addresses = [
        address("InternalIP", ipv4),
        address("ExternalIP", externals[i] ?? ""),
        address("Hostname", name),
      ];
      const node = await waitInitialised(bed.cp, name, addresses);
      expect(node.spec?.providerID).toBe(`fake://${name}`);
      expect(node.spec?.taints ?? []).toEqual([]);
      expect(node.metadata.labels).toEqual({
        ...registered.metadata.labels,
        ...cloudLabels("zone-k", "region-k", "fake.kubelet"),
      });
      expect(node.status?.addresses).toEqual(addresses);
      await eventually(`node ${name} Ready`, async () => isReady(await getNode(bed.cp, name)));
      const events = await syncedEvents(bed.cp, name);
      expect(events.map((e) => [e.type, e.source.component])).toEqual([["Normal", "cloud-node-controller"]]);
    }
    await Promise.all(kubelets.map((k) => k.stop()));
  });

  test("the hand-written fixture registers a node as kubelet does", async () => {
    const name = uniqueName("kl-fixture");
    await bed.addKubelet(name, [ipv4]);
    const real = await expectKubeletRegistration(bed.history, name, [ipv4]);
    const fixture = kubeletNode(name, { nodeIP: ipv4 });
    expect(fixture.metadata.labels).toEqual(real.metadata.labels ?? {});
    expect(fixture.metadata.annotations).toEqual(real.metadata.annotations ?? {});
    expect(fixture.spec).toEqual(real.spec ?? {});
    expect(fixture.status?.addresses).toEqual(real.status?.addresses ?? []);
    const conditions = (node: Node): string[] => (node.status?.conditions ?? []).map((c) => `${c.type}=${c.status}`);
    expect(conditions(fixture)).toEqual(conditions(real));
  });

  test("kubelet's status writes after initialisation change nothing the manager wrote: no flapping", async () => {
    const name = uniqueName("kl-steady");
    const { node: initialised } = await initialisedKubelet(name);
    const since = Date.now();
    await waitForKubeletWrites(bed.cp, name, since, 4);
    // The audit log can show a write a moment before the watch delivers its version.
    const versions = await eventually(`4 versions of ${name} watched`, () => {
      const seen = bed.history.versionsSince(name, since);
      return seen.length >= 4 && seen;
    });
    expect(versions.length).toBeGreaterThanOrEqual(4);
    for (const node of versions) expect(managedFields(node)).toEqual(managedFields(initialised));
    expect(nodeWrites(bed.cp.auditLog, name, since).filter((w) => w.startsWith(CCM_USER))).toEqual([]);
  });

  test("a provided node IP the cloud does not report keeps the taint, through kubelet's status writes, until the cloud reports it", async () => {
    const name = uniqueName("kl-wrongip");
    putInstance(name, ["10.254.0.9"]);
    await bed.addKubelet(name, [ipv4]);
    const escaped = ipv4.replaceAll(".", "\\.");
    await ccm.waitForLine(
      new RegExp(
        `provided node ip for node "${name}" is not valid: failed to get node address from cloud provider that matches ip: ${escaped}`,
      ),
      30_000,
    );
    const since = Date.now();
    await waitForKubeletWrites(bed.cp, name, since, 3);
    const blocked = await getNode(bed.cp, name);
    expect(blocked?.spec?.taints?.map((t) => t.key)).toEqual([TAINT_UNINITIALIZED]);
    expect(blocked?.spec?.providerID).toBeUndefined();
    expect(blocked?.status?.addresses).toEqual([address("InternalIP", ipv4), address("Hostname", name)]);
    expect(await managerEvents(bed.cp, name)).toEqual([]);
    const externalIP = putInstance(name, ["10.254.0.9", ipv4]);
    const node = await waitInitialised(bed.cp, name, [
      address("InternalIP", ipv4),
      address("ExternalIP", externalIP),
      address("Hostname", name),
    ]);
    expect(node.status?.addresses).toEqual([
      address("InternalIP", ipv4),
      address("ExternalIP", externalIP),
      address("Hostname", name),
    ]);
  });

  test("a kubelet restart and a manager restart leave an initialised node untouched", async () => {
    const name = uniqueName("kl-restart");
    const { kubelet, node: initialised } = await initialisedKubelet(name);
    await kubelet.stop();
    const restarted = Date.now();
    await kubelet.start();
    await waitForKubeletWrites(bed.cp, name, restarted, 3);
    for (const node of bed.history.versionsSince(name, restarted))
      expect(managedFields(node)).toEqual(managedFields(initialised));
    expect(isReady(await getNode(bed.cp, name))).toBe(true);

    expect(await ccm.stop("SIGTERM")).toBe(0);
    const managerRestarted = Date.now();
    ccm = bed.startManager(managerArgs());
    await ccm.waitForLine(/caches synced/, 60_000);
    await waitForKubeletWrites(bed.cp, name, Date.now(), 3);
    expect(nodeWrites(bed.cp.auditLog, name, managerRestarted).filter((w) => w.startsWith(CCM_USER))).toEqual([]);
    expect(managedFields(await getNode(bed.cp, name))).toEqual(managedFields(initialised));
    expect((await managerEvents(bed.cp, name)).map((e) => [e.reason, e.count])).toEqual([["Synced", 1]]);
  });

  test("a node whose kubelet stopped and whose instance is shut down gets the shutdown taint; Ready again, it loses it", async () => {
    const name = uniqueName("kl-shutdown");
    const { kubelet } = await initialisedKubelet(name);
    await kubelet.stop();
    cloud.engine.setInstanceState(name, "stopped");
    await markStatusUnknown(bed.cp, name);
    const tainted = await eventually(`shutdown taint on ${name}`, async () => {
      const node = await getNode(bed.cp, name);
      return node?.spec?.taints?.some((t) => t.key === TAINT_SHUTDOWN) && node;
    });
    expect(tainted.spec?.taints?.map((t) => [t.key, t.value, t.effect])).toEqual([
      [TAINT_SHUTDOWN, undefined, "NoSchedule"],
    ]);

    cloud.engine.setInstanceState(name, "running");
    await kubelet.start();
    const back = await eventually(`${name} Ready without the shutdown taint`, async () => {
      const node = await getNode(bed.cp, name);
      return isReady(node) && (node?.spec?.taints ?? []).length === 0 && node;
    });
    expect(back.spec?.providerID).toBe(`fake://${name}`);
  });

  test("a node whose kubelet stopped and whose instance is gone is kept while the cloud fails, then deleted", async () => {
    const name = uniqueName("kl-gone");
    const { kubelet } = await initialisedKubelet(name);
    await kubelet.stop();
    const faults = cloud.engine.faults;
    cloud.engine.setFaults({ ...faults, failAll: "error" });
    try {
      cloud.engine.removeInstance(name);
      await markStatusUnknown(bed.cp, name);
      await ccm.waitForLine(/could not check \d+ NotReady node\(s\) in the cloud, none deleted/, 30_000);
      await holds(`${name} kept while the cloud fails`, 3000, async () => (await getNode(bed.cp, name)) !== undefined);
    } finally {
      cloud.engine.setFaults(faults);
    }
    await eventually(`node ${name} deleted`, async () => (await getNode(bed.cp, name)) === undefined, 30_000);
    const deleting = await eventually(`DeletingNode event for ${name}`, async () => {
      const list = (await managerEvents(bed.cp, name)).filter((e) => e.reason === "DeletingNode");
      return list.length > 0 && list;
    });
    expect(deleting.map((e) => [e.type, e.source.component])).toEqual([["Normal", "cloud-node-lifecycle-controller"]]);
  });

  test.skipIf(!ipv6)(
    `dual-stack --node-ip (IPv4,IPv6) with the cloud reporting both families${ipv6 ? "" : " (skipped: the host has no IPv6 address)"}`,
    async () => {
      const name = uniqueName("kl-dual");
      const v6 = ipv6 ?? "";
      const externalV4 = putInstance(name, [ipv4, v6]);
      const instance = cloud.engine.instances().find((i) => i.name === name);
      cloud.engine.putInstance({
        ...instance!,
        addresses: [...instance!.addresses, address("ExternalIP", "2001:db8:ccc::1")],
      });
      await bed.addKubelet(name, [ipv4, v6]);
      await expectKubeletRegistration(bed.history, name, [ipv4, v6]);
      const expected = [
        address("InternalIP", ipv4),
        address("InternalIP", v6),
        address("ExternalIP", externalV4),
        address("ExternalIP", "2001:db8:ccc::1"),
        address("Hostname", name),
      ];
      const node = await waitInitialised(bed.cp, name, expected);
      expect(node.status?.addresses).toEqual(expected);
      expect(node.spec?.taints ?? []).toEqual([]);
      const since = Date.now();
      await waitForKubeletWrites(bed.cp, name, since, 2);
      expect(managedFields(await getNode(bed.cp, name))).toEqual(managedFields(node));
    },
  );

  test("stopping every kubelet and containerd leaves the machine as it was found", async () => {
    await bed.stop();
    expect(hostFootprint()).toEqual(before);
  });
});
