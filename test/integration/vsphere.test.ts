/**
 * `--cloud-provider=vsphere` end to end: the whole manager as a process against the real kube-apiserver
 * (restricted CCM identity) and vcsim, with upstream's vsphere.conf (credentials from a Secret, tag
 * categories) plus an address pool: many nodes initialised with few vCenter round trips, zones from tags,
 * power off → shutdown taint, VM destroyed → node deleted, vCenter unreachable → nothing deleted, and a
 * LoadBalancer Service served from the pool. Skipped (with the reason in its name) while the build lacks
 * the node, node-lifecycle or service controller.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { controllerFactories } from "../../src/app/controllers.ts";
import { CONTROLLER_NAMES } from "../../src/names/controllers.ts";
import { NAMESPACES, NODES, SERVICES, type KubeApi, type Resource } from "../../src/kube/api.ts";
import type { Node, NodeAddress, Service } from "../../src/kube/objects.ts";
import { isNotFound } from "../../src/kube/transport.ts";
import {
  LABEL_INSTANCE_TYPE,
  LABEL_REGION,
  LABEL_ZONE,
  TAINT_SHUTDOWN,
  TAINT_UNINITIALIZED,
} from "../../src/kube/well-known.ts";
import { nodeOf } from "../../providers/vsphere/fixtures.test-support.ts";
import { startCcm, type CcmProcess, managerFlags } from "../harness/ccm.ts";
import { controlPlane } from "../harness/control-plane.ts";
import { loadBalancerService, readyCondition, uniqueName } from "../harness/fixtures.ts";
import { startVcsim, type Vcsim, type VcsimVm } from "../harness/vcsim.ts";
import { eventually } from "../harness/wait.ts";

const controllersAvailable = CONTROLLER_NAMES.every((name) => controllerFactories()[name] !== undefined);
const SECRETS: Resource = { group: "", version: "v1", plural: "secrets", kind: "Secret", namespaced: true };
const NODE_COUNT = 40;

describe.skipIf(!controllersAvailable)(
  "vsphere CCM end to end against vcsim (needs the node, node-lifecycle and service controllers)",
  () => {
    let admin: KubeApi;
    let sim: Vcsim;
    let ccm: CcmProcess;
    let ns: string;
    const names = new Map<VcsimVm, string>();

    beforeAll(async () => {
      const cp = await controlPlane();
      admin = cp.admin;
      sim = await startVcsim({ hosts: 2, vms: NODE_COUNT + 4 });
      ns = uniqueName("vsphere");
      await admin.create(NAMESPACES, { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } });
      const secret = uniqueName("vsphere-creds");
      const data = { [`${sim.host}.username`]: btoa(sim.username), [`${sim.host}.password`]: btoa(sim.password) };
      await admin.create(
        SECRETS,
        { apiVersion: "v1", kind: "Secret", metadata: { name: secret, namespace: "kube-system" }, data },
        { namespace: "kube-system" },
      );
      const vm = sim.vms[0] as VcsimVm;
      await sim.tag({ type: "ClusterComputeResource", id: vm.cluster }, "k8s-zone", "zone-a");
      await sim.tag({ type: "Datacenter", id: vm.datacenter }, "k8s-region", "region-1");
      const config = join(mkdtempSync(join(tmpdir(), "vsphere-it-")), "vsphere.conf");
      writeFileSync(
        config,
        [
          "global:",
          `  port: ${sim.port}`,
          `  caFile: ${sim.caFile}`,
          `  secretName: ${secret}`,
          "  secretNamespace: kube-system",
          "vcenter:",
          "  vcsim:",
          `    server: ${sim.host}`,
          "    datacenters: [DC0]",
          "labels: { zone: k8s-zone, region: k8s-region }",
          `loadBalancers: { pools: [{ name: web, namespaces: [${ns}], addresses: ["198.51.100.10-198.51.100.20"] }] }`,
        ].join("\n"),
      );
      ccm = startCcm({
        args: [
          ...managerFlags(cp.kubeconfigs.ccm, "vsphere", config),
          "--configure-cloud-routes=false",
          "--node-monitor-period=1s",
          "--kube-api-qps=200",
          "--kube-api-burst=400",
        ],
      });
      await ccm.waitForLine(/caches synced/, 60_000);
    }, 300_000);

    afterAll(async () => {
      await ccm?.stop("SIGTERM").catch(() => ccm.stop("SIGKILL"));
      await sim?.stop();
    });

    const node = (vm: VcsimVm): Node => {
      const name = names.get(vm) ?? uniqueName(vm.hostName);
      names.set(vm, name);
      const base = nodeOf(vm, name);
      return { ...base, spec: { taints: [{ key: TAINT_UNINITIALIZED, value: "true", effect: "NoSchedule" }] } };
    };
    const get = async (name: string): Promise<Node | undefined> => {
      try {
        return await admin.get<Node>(NODES, name);
      } catch (error) {
        if (isNotFound(error)) return undefined;
        throw error;
      }
    };
    const notReady = (name: string): Promise<unknown> =>
      admin.patch(
        NODES,
        name,
        { status: { conditions: [readyCondition(false)] } },
        { subresource: "status", type: "strategic" },
      );

    test(`${NODE_COUNT} nodes initialised: providerID, type, zone, region, addresses; round trips`, async () => {
      const vms = sim.vms.slice(0, NODE_COUNT);
      await sim.resetCalls();
      const started = performance.now();
      await Promise.all(vms.map((vm) => admin.create(NODES, node(vm))));
      const initialised = async (): Promise<boolean> => {
        const nodes = (await admin.list<Node>(NODES)).items.filter((n) =>
          [...names.values()].includes(n.metadata.name),
        );
        return (
          nodes.length === vms.length && nodes.every((n) => !n.spec?.taints?.some((t) => t.key === TAINT_UNINITIALIZED))
        );
      };
      await eventually("every node to be initialised", initialised, 120_000, 100);
      const seconds = (performance.now() - started) / 1000;
      const served = await sim.calls();
      const total = Object.values(served).reduce((a, b) => a + b, 0);
      console.log(
        `[figures] ${vms.length} nodes initialised in ${seconds.toFixed(1)} s with ${total} vCenter round trips ` +
          `(${(total / vms.length).toFixed(2)} per node): ${JSON.stringify(served)}`,
      );
      expect(total / vms.length).toBeLessThan(1);
      const first = (await get(names.get(vms[0] as VcsimVm) ?? "")) as Node;
      expect(first.spec?.providerID).toBe(`vsphere://${vms[0]?.uuid}`);
      expect(first.metadata.labels).toMatchObject({ [LABEL_ZONE]: "zone-a", [LABEL_REGION]: "region-1" });
      expect(first.metadata.labels?.[LABEL_INSTANCE_TYPE]).toMatch(/^vsphere-vm\.cpu-\d+\.mem-\d+gb\.os-ubuntu$/);
      // The addresses are a status write of their own, which may land just after the taint is gone.
      const addresses = async (): Promise<NodeAddress[] | undefined> => {
        const internal = (await get(first.metadata.name))?.status?.addresses?.filter((a) => a.type === "InternalIP");
        return internal?.length ? internal : undefined;
      };
      expect(await eventually("the node's addresses", addresses, 30_000)).toContainEqual({
        type: "InternalIP",
        address: vms[0]?.ip ?? "",
      });
    }, 180_000);

    test("a LoadBalancer Service is served from the pool, with the announce annotation", async () => {
      const svc = await admin.create<Service>(SERVICES, loadBalancerService("web", ns), { namespace: ns });
      const ingress = async (): Promise<string | undefined> =>
        (await admin.get<Service>(SERVICES, svc.metadata.name, { namespace: ns })).status?.loadBalancer?.ingress?.[0]
          ?.ip;
      expect(await eventually("the Service to get an address", ingress, 60_000)).toBe("198.51.100.10");
      const annotations =
        (await admin.get<Service>(SERVICES, svc.metadata.name, { namespace: ns })).metadata.annotations ?? {};
      expect(annotations["kube-vip.io/loadbalancerIPs"]).toBe("198.51.100.10");
    }, 90_000);

    test("sessions expired mid-run (vCenter restart): the next node is initialised all the same", async () => {
      await sim.resetCalls();
      await sim.expireSessions();
      const vm = sim.vms[NODE_COUNT] as VcsimVm;
      await admin.create(NODES, node(vm));
      const providerID = async (): Promise<string | undefined> =>
        (await get(names.get(vm) as string))?.spec?.providerID;
      expect(await eventually("the late node to be initialised", providerID, 60_000)).toBe(`vsphere://${vm.uuid}`);
      expect((await sim.calls())["soap Login"]).toBe(1);
    }, 90_000);

    test("power off: the NotReady node gets the shutdown taint and stays", async () => {
      const vm = sim.vms[1] as VcsimVm;
      const name = names.get(vm) as string;
      await sim.powerOff(vm.uuid);
      await notReady(name);
      const tainted = async (): Promise<boolean> =>
        (await get(name))?.spec?.taints?.some((t) => t.key === TAINT_SHUTDOWN) ?? false;
      await eventually("the shutdown taint", tainted, 60_000);
    }, 90_000);

    test("vCenter unreachable: the NotReady node of a gone VM is kept until vCenter answers again", async () => {
      const vm = sim.vms[2] as VcsimVm;
      const name = names.get(vm) as string;
      await sim.destroy(vm.uuid);
      await sim.setDown(true);
      try {
        await notReady(name);
        await Bun.sleep(5_000);
        expect(await get(name)).toBeDefined();
      } finally {
        await sim.setDown(false);
      }
      await eventually(
        "the node of the destroyed VM to be deleted",
        async () => (await get(name)) === undefined,
        60_000,
      );
      expect(await get(names.get(sim.vms[3] as VcsimVm) as string)).toBeDefined();
    }, 120_000);
  },
);
