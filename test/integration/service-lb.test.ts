/**
 * service-lb-controller against a real kube-apiserver, as the restricted identity, with the fake cloud
 * served by this test (it outlives CCM restarts, like a real cloud).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SERVICES, type KubeApi } from "../../src/kube/api.ts";
import type { Service } from "../../src/kube/objects.ts";
import { isNotFound } from "../../src/kube/transport.ts";
import { FINALIZER_LB_CLEANUP, LABEL_EXCLUDE_FROM_EXTERNAL_LB } from "../../src/kube/well-known.ts";
import { NODES } from "../../src/kube/api.ts";
import type { FakeLoadBalancer } from "../../providers/fake/wire.ts";
import type { CcmProcess } from "../harness/ccm.ts";
import { controlPlane } from "../harness/control-plane.ts";
import { startFakeCloud, type TestFakeCloud } from "../harness/fake-cloud.ts";
import { kubeletNode, loadBalancerService, uniqueName } from "../harness/fixtures.ts";
import { eventually } from "../harness/wait.ts";
import {
  createNamespace,
  createNode,
  deleteNodes,
  INTEGRATION_TIMEOUT_MS,
  eventsFor,
  startController,
} from "./support.ts";

const CONTROLLER = "service-lb-controller";
const TIMEOUT_MS = INTEGRATION_TIMEOUT_MS;
const CLASS = "example.com/fake-lb";

let admin: KubeApi;
let cloud: TestFakeCloud;
let namespace: string;
const nodeNames: string[] = [];
let startCcmHere: (extra?: readonly string[]) => Promise<CcmProcess>;

beforeAll(async () => {
  const cp = await controlPlane();
  admin = cp.admin;
  cloud = startFakeCloud();
  namespace = uniqueName("svc-lb");
  await createNamespace(admin, namespace);
  for (const suffix of ["a", "b"]) {
    const name = uniqueName(`lb-node-${suffix}`);
    nodeNames.push(name);
    await createNode(admin, kubeletNode(name, { uninitialized: false, providerID: `fake://${name}` }));
  }
  startCcmHere = (extra = []) => startController(cp, cloud, CONTROLLER, extra);
}, TIMEOUT_MS);

afterAll(async () => {
  await deleteNodes(admin, nodeNames);
  await cloud.stop();
}, TIMEOUT_MS);

const lbOf = (name: string): FakeLoadBalancer | undefined =>
  cloud.engine.loadBalancers().find((lb) => lb.service === `${namespace}/${name}`);

async function getService(name: string): Promise<Service | undefined> {
  return admin.get<Service>(SERVICES, name, { namespace }).catch((error: unknown) => {
    if (isNotFound(error)) return undefined;
    throw error;
  });
}

async function createService(name: string, o: Parameters<typeof loadBalancerService>[2] = {}): Promise<Service> {
  return admin.create(SERVICES, loadBalancerService(name, namespace, o), { namespace });
}

/** The LB exists, the Service carries our finalizer, and its status shows the LB's address. */
async function provisioned(name: string): Promise<{ lb: FakeLoadBalancer; service: Service }> {
  return eventually(`load balancer of ${name} provisioned`, async () => {
    const lb = lbOf(name);
    const service = await getService(name);
    const ingress = service?.status?.loadBalancer?.ingress ?? [];
    if (!lb || !service?.metadata.finalizers?.includes(FINALIZER_LB_CLEANUP) || ingress.length === 0) return undefined;
    return { lb, service };
  });
}

async function gone(name: string): Promise<void> {
  await eventually(
    `service ${name} and its load balancer gone`,
    async () => !lbOf(name) && (await getService(name)) === undefined,
  );
}

describe("service-lb-controller", () => {
  let ccm: CcmProcess;
  beforeAll(async () => {
    ccm = await startCcmHere();
  }, TIMEOUT_MS);
  afterAll(async () => {
    expect(await ccm.stop()).toBe(0);
    expect(ccm.output()).not.toMatch(/forbidden/i);
  }, TIMEOUT_MS);

  test(
    "create, change ports, delete: LB, status ingress and finalizer follow the Service",
    async () => {
      const name = uniqueName("web");
      await createService(name);
      const { lb, service } = await provisioned(name);
      expect(service.status?.loadBalancer?.ingress?.[0]?.ip).toBe(lb.ingress[0]?.ip);
      expect(lb.ports.map((p) => p.port)).toEqual([80]);
      for (const n of nodeNames) expect(lb.nodes).toContain(n);

      await admin.patch(
        SERVICES,
        name,
        { spec: { ports: [{ name: "http", protocol: "TCP", port: 8080, targetPort: 8080 }] } },
        { namespace, type: "merge" },
      );
      const updated = await eventually("LB ports follow", () =>
        lbOf(name)?.ports[0]?.port === 8080 ? lbOf(name) : undefined,
      );
      expect(updated.ensureCount).toBeGreaterThan(lb.ensureCount);
      expect(updated.ingress).toEqual(lb.ingress);

      await admin.delete(SERVICES, name, { namespace });
      await gone(name);
      const wanted = ["EnsuringLoadBalancer", "EnsuredLoadBalancer", "DeletingLoadBalancer", "DeletedLoadBalancer"].map(
        (r) => `service-controller/${r}`,
      );
      await eventually("the life cycle's events", async () => {
        const seen = (await eventsFor(admin, namespace, "Service", name)).map((e) => `${e.component}/${e.reason}`);
        return wanted.every((r) => seen.includes(r));
      });
    },
    TIMEOUT_MS,
  );

  test(
    "node excluded by label, then node deleted: UpdateLoadBalancer with the new set",
    async () => {
      const name = uniqueName("backends");
      const extra = uniqueName("lb-node-c");
      nodeNames.push(extra);
      await createNode(admin, kubeletNode(extra, { uninitialized: false, providerID: `fake://${extra}` }));
      await createService(name);
      const { lb } = await provisioned(name);
      for (const n of nodeNames) expect(lb.nodes).toContain(n);

      const [first, second] = nodeNames as [string, string];
      await admin.patch(
        NODES,
        first,
        { metadata: { labels: { [LABEL_EXCLUDE_FROM_EXTERNAL_LB]: "true" } } },
        { type: "merge" },
      );
      const afterLabel = await eventually("excluded node leaves the LB", () => {
        const now = lbOf(name);
        return now && !now.nodes.includes(first) ? now : undefined;
      });
      expect(afterLabel.updateCount).toBeGreaterThan(lb.updateCount);
      expect(afterLabel.nodes).toContain(second);

      await admin.patch(
        NODES,
        first,
        { metadata: { labels: { [LABEL_EXCLUDE_FROM_EXTERNAL_LB]: "false" } } },
        { type: "merge" },
      );
      await eventually("a false exclusion label includes the node again", () => lbOf(name)?.nodes.includes(first));

      await admin.delete(NODES, extra);
      await eventually("deleted node leaves the LB", () => {
        const now = lbOf(name);
        return now && !now.nodes.includes(extra) && now.nodes.includes(first);
      });
      await eventually("UpdatedLoadBalancer event", async () =>
        (await eventsFor(admin, namespace, "Service", name)).some((e) => e.reason === "UpdatedLoadBalancer"),
      );
      await admin.delete(SERVICES, name, { namespace });
      await gone(name);
    },
    TIMEOUT_MS,
  );

  test(
    "an annotation the provider rejects: Warning event on that Service, others keep working",
    async () => {
      const bad = uniqueName("rejected");
      const good = uniqueName("fine");
      await createService(bad, { annotations: { "lb.fake.cloud/reject": "no such flavour" } });
      await createService(good, { annotations: { "lb.fake.cloud/colour": "blue" } });
      await provisioned(good);
      const warning = await eventually("SyncLoadBalancerFailed on the rejected Service", async () =>
        (await eventsFor(admin, namespace, "Service", bad)).find((e) => e.reason === "SyncLoadBalancerFailed"),
      );
      expect(warning).toMatchObject({ type: "Warning", component: "service-controller" });
      expect(warning.message).toContain("no such flavour");
      expect(lbOf(bad)).toBeUndefined();
      const unsupported = await eventually("the provider's warning on the other Service", async () =>
        (await eventsFor(admin, namespace, "Service", good)).find((e) => e.reason === "UnsupportedAnnotation"),
      );
      expect(unsupported.type).toBe("Warning");
      expect(unsupported.message).toContain("lb.fake.cloud/colour");

      await admin.patch(
        SERVICES,
        bad,
        { metadata: { annotations: { "lb.fake.cloud/reject": null } } },
        { namespace, type: "merge" },
      );
      await provisioned(bad);
      for (const name of [bad, good]) await admin.delete(SERVICES, name, { namespace });
      await gone(bad);
      await gone(good);
    },
    TIMEOUT_MS,
  );
});

describe("service-lb-controller across restarts", () => {
  test(
    "classed Services: ignored without --load-balancer-class, served with it",
    async () => {
      const classed = uniqueName("classed");
      const plain = uniqueName("plain");
      let ccm = await startCcmHere();
      // Created first: with one worker and a FIFO queue, had it been queued it would be done before `plain`.
      await createService(classed, { loadBalancerClass: CLASS });
      await createService(plain);
      await provisioned(plain);
      expect(lbOf(classed)).toBeUndefined();
      expect((await getService(classed))?.metadata.finalizers ?? []).toEqual([]);
      expect(await ccm.stop()).toBe(0);

      ccm = await startCcmHere([`--load-balancer-class=${CLASS}`]);
      await provisioned(classed);
      for (const name of [classed, plain]) await admin.delete(SERVICES, name, { namespace });
      await gone(classed);
      await gone(plain);
      expect(await ccm.stop()).toBe(0);
    },
    TIMEOUT_MS,
  );

  test(
    "deleted, or changed to ClusterIP, while the CCM is down: LB removed and finalizer released on start",
    async () => {
      const deleted = uniqueName("deleted-while-down");
      const retyped = uniqueName("retyped-while-down");
      const cloudDone = uniqueName("cloud-done");
      let ccm = await startCcmHere();
      for (const name of [deleted, retyped, cloudDone]) await createService(name);
      for (const name of [deleted, retyped, cloudDone]) await provisioned(name);
      expect(await ccm.stop()).toBe(0);

      await admin.delete(SERVICES, deleted, { namespace });
      await admin.patch(SERVICES, retyped, { spec: { type: "ClusterIP" } }, { namespace, type: "merge" });
      // The cloud finished a delete the CCM never saw complete: only the finalizer is left to release.
      cloud.engine.removeLoadBalancer(lbOf(cloudDone)!.name);
      await admin.delete(SERVICES, cloudDone, { namespace });
      expect((await getService(deleted))?.metadata.deletionTimestamp).toBeDefined();

      ccm = await startCcmHere();
      await gone(deleted);
      await gone(cloudDone);
      const service = await eventually("finalizer released on the retyped Service", async () => {
        const s = await getService(retyped);
        return s && !s.metadata.finalizers?.includes(FINALIZER_LB_CLEANUP) ? s : undefined;
      });
      expect(lbOf(retyped)).toBeUndefined();
      expect(service.status?.loadBalancer?.ingress ?? []).toEqual([]);
      await admin.delete(SERVICES, retyped, { namespace });
      expect(await ccm.stop()).toBe(0);
    },
    TIMEOUT_MS,
  );

  test(
    "--load-balancer-resync-period: an LB deleted behind the controller's back comes back",
    async () => {
      const name = uniqueName("drifted");
      const ccm = await startCcmHere(["--load-balancer-resync-period=1s"]);
      await createService(name);
      const { lb } = await provisioned(name);
      cloud.engine.removeLoadBalancer(lb.name);
      const back = await eventually("the LB re-ensured", () => lbOf(name));
      expect(back.name).toBe(lb.name);
      await eventually(
        "status shows the new LB's address",
        async () => (await getService(name))?.status?.loadBalancer?.ingress?.[0]?.ip === back.ingress[0]?.ip,
      );
      await admin.delete(SERVICES, name, { namespace });
      await gone(name);
      expect(await ccm.stop()).toBe(0);
    },
    TIMEOUT_MS,
  );

  test(
    "CCM killed (SIGKILL) in the middle of a delete and restarted: no leak",
    async () => {
      const name = uniqueName("killed-mid-delete");
      let ccm = await startCcmHere();
      await createService(name);
      const { lb } = await provisioned(name);
      const faults = cloud.engine.faults;
      cloud.engine.setFaults({ ...faults, operationLatencyMs: { EnsureLoadBalancerDeleted: 120_000 } });
      const before = cloud.engine.calls().EnsureLoadBalancerDeleted ?? 0;
      await admin.delete(SERVICES, name, { namespace });
      await eventually("the delete is in flight", () => (cloud.engine.calls().EnsureLoadBalancerDeleted ?? 0) > before);
      ccm.proc.kill("SIGKILL");
      await ccm.exited;
      // The cloud call died with its client: the LB and the finalizer are both still there.
      await Bun.sleep(200);
      expect(lbOf(name)?.name).toBe(lb.name);
      expect((await getService(name))?.metadata.finalizers).toContain(FINALIZER_LB_CLEANUP);

      cloud.engine.setFaults(faults);
      ccm = await startCcmHere();
      await gone(name);
      expect(await ccm.stop()).toBe(0);
    },
    TIMEOUT_MS,
  );
});
