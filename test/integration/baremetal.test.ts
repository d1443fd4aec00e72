/**
 * `--cloud-provider=baremetal` end to end: the whole manager as a process against the real kube-apiserver,
 * as the restricted CCM identity. These tests need the node, node-lifecycle and service controllers, and
 * are skipped (with that reason in their name) while `controllerFactories()` does not offer all four
 * controllers of the build. The provider alone against the same API server is baremetal-provider.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { controllerFactories } from "../../src/app/controllers.ts";
import { CONTROLLER_NAMES } from "../../src/names/controllers.ts";
import { EVENTS, NAMESPACES, NODES, SERVICES, type KubeApi } from "../../src/kube/api.ts";
import type { KubeObject, Node, Service } from "../../src/kube/objects.ts";
import { isNotFound } from "../../src/kube/transport.ts";
import { FINALIZER_LB_CLEANUP, LABEL_ZONE, TAINT_UNINITIALIZED } from "../../src/kube/well-known.ts";
import { parseBaremetalConfig } from "../../providers/baremetal/index.ts";
import { startCcm, type CcmProcess, managerFlags } from "../harness/ccm.ts";
import { controlPlane } from "../harness/control-plane.ts";
import { kubeletNode, loadBalancerService, readyCondition, uniqueName } from "../harness/fixtures.ts";
import { eventually } from "../harness/wait.ts";

const KUBE_VIP = "kube-vip.io/loadbalancerIPs";
const SHARE = "baremetal.cloudprovider.io/sharing-key";
const REQUESTED = "baremetal.cloudprovider.io/loadBalancerIPs";
const RACK = "baremetal.cloudprovider.io/rack";

const controllersAvailable = CONTROLLER_NAMES.every((name) => controllerFactories()[name] !== undefined);

interface Event extends KubeObject {
  readonly type: string;
  readonly reason: string;
  readonly message: string;
  readonly involvedObject: { readonly name: string };
  readonly count?: number;
  /** Whole seconds: never later than the last occurrence. */
  readonly lastTimestamp?: string;
}

const ingressIPs = (svc: Service): string[] => (svc.status?.loadBalancer?.ingress ?? []).map((i) => i.ip ?? "");

const namespaces: string[] = [];

async function namespace(admin: KubeApi, prefix: string): Promise<string> {
  const name = uniqueName(prefix);
  await admin.create(NAMESPACES, { apiVersion: "v1", kind: "Namespace", metadata: { name } });
  namespaces.push(name);
  return name;
}

/**
 * The Services of these tests go with them: the test control plane has no namespace controller, and a
 * later test's manager would otherwise ensure hundreds of load balancers that are not its own.
 */
async function deleteServices(admin: KubeApi): Promise<void> {
  for (const ns of namespaces.splice(0))
    for (const svc of await listServices(admin, ns)) {
      const name = svc.metadata.name;
      await admin.patch(SERVICES, name, { metadata: { finalizers: null } }, { namespace: ns, type: "merge" });
      await admin.delete(SERVICES, name, { namespace: ns }).catch((error: unknown) => {
        if (!isNotFound(error)) throw error;
      });
    }
}

function configFile(yaml: string): string {
  const parsed = parseBaremetalConfig(yaml);
  if (!parsed.ok) throw new Error(`bad test config: ${parsed.errors.join("; ")}`);
  const path = join(mkdtempSync(join(tmpdir(), "baremetal-it-")), "cloud.yaml");
  writeFileSync(path, yaml);
  return path;
}

async function listServices(admin: KubeApi, ns: string): Promise<Service[]> {
  return (await admin.list<Service>(SERVICES, { namespace: ns })).items;
}

async function eventsFor(admin: KubeApi, ns: string, name: string): Promise<Event[]> {
  return (await admin.list<Event>(EVENTS, { namespace: ns, fieldSelector: `involvedObject.name=${name}` })).items;
}

/** Every address has one Service, or several that share a key and no port. */
function expectNoDuplicates(services: readonly Service[]): void {
  const owners = new Map<string, Service[]>();
  for (const svc of services) for (const ip of ingressIPs(svc)) owners.set(ip, [...(owners.get(ip) ?? []), svc]);
  for (const [ip, holders] of owners) {
    if (holders.length === 1) continue;
    const keys = new Set(holders.map((s) => s.metadata.annotations?.[SHARE]));
    const ports = holders.flatMap((s) => (s.spec?.ports ?? []).map((p) => `${p.protocol}/${p.port}`));
    expect({ ip, keys: [...keys], clash: ports.length !== new Set(ports).size }).toEqual({
      ip,
      keys: [holders[0]?.metadata.annotations?.[SHARE] ?? "none"],
      clash: false,
    });
  }
}

describe.skipIf(!controllersAvailable)(
  "baremetal CCM end to end (needs the node, node-lifecycle and service controllers)",
  () => {
    let admin: KubeApi;
    let kubeconfig: string;
    let running: CcmProcess[] = [];

    beforeAll(async () => {
      const cp = await controlPlane();
      admin = cp.admin;
      kubeconfig = cp.kubeconfigs.ccm;
    });
    afterAll(async () => {
      for (const ccm of running) await ccm.stop("SIGKILL").catch(() => undefined);
      await deleteServices(admin);
    }, 120_000);

    function start(config: string, extra: readonly string[] = []): CcmProcess {
      const ccm = startCcm({
        args: [
          ...managerFlags(kubeconfig, "baremetal", config),
          "--configure-cloud-routes=false",
          "--kube-api-qps=200",
          "--kube-api-burst=400",
          ...extra,
        ],
      });
      running.push(ccm);
      return ccm;
    }

    async function stopAll(): Promise<void> {
      for (const ccm of running) await ccm.stop("SIGTERM").catch(() => ccm.stop("SIGKILL"));
      running = [];
    }

    test("200 Services over three pools with sharing; the CCM is killed and restarted midway: no duplicate, none left without an address", async () => {
      const [a, b] = [await namespace(admin, "bm-a"), await namespace(admin, "bm-b")];
      const config = configFile(`
loadBalancers:
  pools:
    - { name: only-a, namespaces: [${a}], priority: 1, addresses: ["172.31.0.0/26"] }
    - { name: first, namespaces: [${a}, ${b}], priority: 10, addresses: ["172.31.1.1-172.31.1.100"] }
    - { name: second, namespaces: [${a}, ${b}], priority: 20, addresses: ["172.31.2.0/25"] }
`);
      let ccm = start(config, ["--concurrent-service-syncs=5"]);
      const services = Array.from({ length: 200 }, (_, i) => {
        const ns = i < 100 ? a : b;
        const paired = i % 100 < 30;
        const annotations: Record<string, string> = paired ? { [SHARE]: `pair-${Math.floor(i / 2)}` } : {};
        return loadBalancerService(`svc-${i}`, ns, {
          annotations,
          ports: [{ name: "p", protocol: "TCP", port: paired && i % 2 === 1 ? 443 : 80, targetPort: 8080 }],
        });
      });
      const create = async (batch: readonly Service[]): Promise<void> => {
        for (let i = 0; i < batch.length; i += 20)
          await Promise.all(
            batch.slice(i, i + 20).map((svc) => admin.create(SERVICES, svc, { namespace: svc.metadata.namespace })),
          );
      };
      const addressed = async (): Promise<Service[]> =>
        [...(await listServices(admin, a)), ...(await listServices(admin, b))].filter((s) => ingressIPs(s).length > 0);
      // Half the Services exist when the CCM is killed, some of them still being synced; the rest arrive while it is
      // down.
      const interleaved = services.filter((_, i) => i % 2 === 0).concat(services.filter((_, i) => i % 2 === 1));
      await create(interleaved.slice(0, 100));
      await eventually("some Services to get addresses", async () => (await addressed()).length >= 20, 120_000, 100);
      await ccm.stop("SIGKILL");
      const shownAtKill = (await addressed()).length;
      running = running.filter((r) => r !== ccm);
      await create(interleaved.slice(100));
      ccm = start(config, ["--concurrent-service-syncs=5"]);
      const restoredLine = await ccm.waitForLine(/restored the load-balancer addresses of \d+ Service\(s\)/, 60_000);
      expect(Number(/of (\d+) Service/.exec(restoredLine)?.[1])).toBeGreaterThanOrEqual(shownAtKill);
      console.error(`[baremetal] ${shownAtKill} of 200 Services showed an address when the first CCM was killed`);
      await eventually("every Service to get an address", async () => (await addressed()).length === 200, 240_000, 500);

      const all = [...(await listServices(admin, a)), ...(await listServices(admin, b))];
      expectNoDuplicates(all);
      for (const svc of all) {
        expect(ingressIPs(svc)).toHaveLength(1);
        expect(svc.metadata.annotations?.[KUBE_VIP]).toBe(ingressIPs(svc)[0]);
        expect(svc.metadata.finalizers).toContain(FINALIZER_LB_CLEANUP);
        if (svc.metadata.namespace === b) expect(ingressIPs(svc)[0]).not.toMatch(/^172\.31\.0\./);
      }
      const pairs = all.filter((s) => s.metadata.annotations?.[SHARE]);
      expect(new Set(pairs.map((s) => ingressIPs(s)[0])).size).toBe(pairs.length / 2);
      await stopAll();
    }, 420_000);

    test("two controller threads: Services created at once draw distinct addresses from one pool", async () => {
      const ns = await namespace(admin, "bm-threads");
      const ccm = start(
        configFile(`loadBalancers: { pools: [{ name: shared, namespaces: [${ns}], addresses: ["172.31.8.0/26"] }] }`),
        ["--controller-threads=2", "--concurrent-service-syncs=5"],
      );
      // Each thread would keep its own allocation table: the load balancers are all ensured on thread 0.
      await ccm.waitForLine(/running 2 controller thread\(s\);.*on thread 0 alone: .*service-lb-controller/, 60_000);
      await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          admin.create(SERVICES, loadBalancerService(`svc-${i}`, ns), { namespace: ns }),
        ),
      );
      await eventually(
        "every Service to get an address",
        async () => (await listServices(admin, ns)).every((s) => ingressIPs(s).length === 1),
        120_000,
        200,
      );
      const all = await listServices(admin, ns);
      expect(all).toHaveLength(40);
      expect(new Set(all.map((s) => ingressIPs(s)[0])).size).toBe(40);
      await stopAll();
    }, 240_000);

    test("a full pool: a Warning event on the Service and no address; the others keep theirs; room again after a delete", async () => {
      const ns = await namespace(admin, "bm-full");
      start(
        configFile(
          `loadBalancers: { pools: [{ name: tiny, namespaces: [${ns}], addresses: ["172.31.9.1-172.31.9.2"] }] }`,
        ),
      );
      for (const name of ["one", "two"]) await admin.create(SERVICES, loadBalancerService(name, ns), { namespace: ns });
      await eventually(
        "two addresses",
        async () => (await listServices(admin, ns)).filter((s) => ingressIPs(s).length === 1).length === 2,
        60_000,
      );
      await admin.create(SERVICES, loadBalancerService("three", ns), { namespace: ns });
      await admin.create(SERVICES, loadBalancerService("outside", ns, { annotations: { [REQUESTED]: "192.0.2.10" } }), {
        namespace: ns,
      });
      const warned = async (name: string, text: string): Promise<boolean> =>
        (await eventsFor(admin, ns, name)).some(
          (e) => e.type === "Warning" && e.reason === "SyncLoadBalancerFailed" && e.message.includes(text),
        );
      await eventually(
        "the full-pool event",
        () => warned("three", "no free IPv4 address in address pool(s) tiny"),
        60_000,
      );
      await eventually(
        "the outside-every-pool event",
        () => warned("outside", "requested address 192.0.2.10 is not in any address pool"),
        60_000,
      );
      const byName = new Map((await listServices(admin, ns)).map((s) => [s.metadata.name, s]));
      expect(ingressIPs(byName.get("three")!)).toEqual([]);
      expect([...ingressIPs(byName.get("one")!), ...ingressIPs(byName.get("two")!)].sort()).toEqual([
        "172.31.9.1",
        "172.31.9.2",
      ]);
      const freed = ingressIPs(byName.get("one")!)[0];
      await admin.delete(SERVICES, "one", { namespace: ns });
      await eventually(
        "the freed address to go to the waiting Service",
        async () => {
          const three = await admin.get<Service>(SERVICES, "three", { namespace: ns });
          return ingressIPs(three)[0] === freed;
        },
        120_000,
        500,
      );
      await stopAll();
    }, 300_000);

    test("waiting Services are synced again at once: a freed address and a relabelled Namespace serve them within seconds, not after their backoff", async () => {
      const [one, gold] = [await namespace(admin, "bm-one"), await namespace(admin, "bm-gold")];
      const tier = uniqueName("tier");
      start(
        configFile(`
loadBalancers:
  pools:
    - { name: one, namespaces: [${one}], addresses: ["172.31.10.1/32"] }
    - { name: gold, namespaceSelectors: [{ matchLabels: { tier: ${tier} } }], addresses: ["172.31.11.1/32"] }
`),
      );
      const addressOf = async (ns: string, name: string): Promise<string | undefined> =>
        ingressIPs(await admin.get<Service>(SERVICES, name, { namespace: ns }))[0];
      await admin.create(SERVICES, loadBalancerService("a", one), { namespace: one });
      await eventually("a's address", async () => (await addressOf(one, "a")) === "172.31.10.1", 60_000);
      await admin.create(SERVICES, loadBalancerService("b", one), { namespace: one });
      await admin.create(SERVICES, loadBalancerService("g", gold), { namespace: gold });
      const failed = async (ns: string, name: string): Promise<Event[]> =>
        (await eventsFor(admin, ns, name)).filter((e) => e.reason === "SyncLoadBalancerFailed");
      const total = (events: readonly Event[]): number => events.reduce((n, e) => n + (e.count ?? 1), 0);
      const failures = async (ns: string, name: string): Promise<number> => total(await failed(ns, name));
      // When its own retry is due: the controller's backoff (5 s after the first failure, doubling) from the
      // last failure. Event times are whole seconds, so this is never later than the real due time.
      const retryDue = async (ns: string, name: string): Promise<number> => {
        const events = await failed(ns, name);
        const last = Math.max(...events.map((e) => Date.parse(e.lastTimestamp ?? "")));
        return last + 5_000 * 2 ** (total(events) - 1);
      };
      // Failed twice (5 s apart): each waits 10 s for its next retry of its own.
      await eventually(
        "both Services to fail twice",
        async () => (await failures(one, "b")) >= 2 && (await failures(gold, "g")) >= 2,
        60_000,
      );
      const due = Math.min(await retryDue(one, "b"), await retryDue(gold, "g"));
      const changed = Date.now();
      await admin.delete(SERVICES, "a", { namespace: one });
      await admin.patch(NAMESPACES, gold, { metadata: { labels: { tier } } }, { type: "merge" });
      await eventually(
        "b to get the freed address and g the gold pool's",
        async () => (await addressOf(one, "b")) === "172.31.10.1" && (await addressOf(gold, "g")) === "172.31.11.1",
        30_000,
        100,
      );
      const served = Date.now();
      const [after, ahead] = [(served - changed) / 1000, (due - served) / 1000];
      console.error(
        `[baremetal] waiting Services served ${after.toFixed(1)} s after the change, ${ahead.toFixed(1)} s before their retry`,
      );
      // Before the retry of their own was due: the change, not the backoff, served them.
      expect(Number.isFinite(due)).toBe(true);
      expect(served).toBeLessThan(due);
      await stopAll();
    }, 180_000);

    test("a Service relabelled to match a pool's serviceSelectors is served at once, not after its backoff", async () => {
      const ns = await namespace(admin, "bm-relabel");
      const app = uniqueName("app");
      start(
        configFile(`
loadBalancers:
  pools:
    - { name: web, serviceSelectors: [{ matchLabels: { app: ${app} } }], addresses: ["172.31.12.1/32"] }
`),
      );
      await admin.create(SERVICES, loadBalancerService("w", ns), { namespace: ns });
      const failed = async (): Promise<Event[]> =>
        (await eventsFor(admin, ns, "w")).filter((e) => e.reason === "SyncLoadBalancerFailed");
      const total = (events: readonly Event[]): number => events.reduce((n, e) => n + (e.count ?? 1), 0);
      await eventually("w to fail twice (no pool takes it)", async () => total(await failed()) >= 2, 60_000);
      const events = await failed();
      const last = Math.max(...events.map((e) => Date.parse(e.lastTimestamp ?? "")));
      const due = last + 5_000 * 2 ** (total(events) - 1);
      await admin.patch(SERVICES, "w", { metadata: { labels: { app } } }, { namespace: ns, type: "merge" });
      await eventually(
        "w to get the web pool's address",
        async () => ingressIPs(await admin.get<Service>(SERVICES, "w", { namespace: ns }))[0] === "172.31.12.1",
        30_000,
        100,
      );
      // Before its own retry was due: the label change, not the backoff, served it.
      expect(Number.isFinite(due)).toBe(true);
      expect(Date.now()).toBeLessThan(due);
      await stopAll();
    }, 180_000);

    test("the inventory edited live: nodes registered after the edit get the new labels, earlier ones keep theirs", async () => {
      const prefix = uniqueName("rack");
      const yaml = (zone: string, tier: string): string => `
inventory:
  defaults: { region: dc1, instanceType: metal }
  racks: [{ name: r1, zone: ${zone}, labels: { example.com/tier: ${tier} } }]
  machines: [{ pattern: "${prefix}-*", rack: r1 }]
`;
      const config = configFile(yaml("dc1-a", "gold"));
      const ccm = start(config);
      const labelsOf = async (name: string): Promise<Record<string, string> | undefined> => {
        const n = await admin.get<Node>(NODES, name);
        return n.spec?.taints?.some((t) => t.key === TAINT_UNINITIALIZED) ? undefined : n.metadata.labels;
      };
      await admin.create(NODES, kubeletNode(`${prefix}-1`, { nodeIP: "10.20.0.1" }));
      const first = await eventually("the first node to be initialised", () => labelsOf(`${prefix}-1`), 60_000);
      expect(first).toMatchObject({
        [LABEL_ZONE]: "dc1-a",
        "example.com/tier": "gold",
        [RACK]: "r1",
        "node.kubernetes.io/instance-type": "metal",
      });
      expect((await admin.get<Node>(NODES, `${prefix}-1`)).spec?.providerID).toBe(`baremetal://${prefix}-1`);

      writeFileSync(config, yaml("dc1-b", "silver"));
      await ccm.waitForLine(/applied the edit of .*cloud.yaml/, 30_000);
      await admin.create(NODES, kubeletNode(`${prefix}-2`, { nodeIP: "10.20.0.2" }));
      const second = await eventually("the second node to be initialised", () => labelsOf(`${prefix}-2`), 60_000);
      expect(second).toMatchObject({ [LABEL_ZONE]: "dc1-b", "example.com/tier": "silver" });
      expect(await labelsOf(`${prefix}-1`)).toMatchObject({ [LABEL_ZONE]: "dc1-a", "example.com/tier": "gold" });

      writeFileSync(config, "inventory: { machines: [{ name: Not_Valid }] }");
      await ccm.waitForLine(
        /ignoring the edit of .*cloud.yaml, the last good configuration stays in force: inventory.machines\[0\].name/,
        30_000,
      );
      await admin.create(NODES, kubeletNode(`${prefix}-3`, { nodeIP: "10.20.0.3" }));
      expect(await eventually("the third node to be initialised", () => labelsOf(`${prefix}-3`), 60_000)).toMatchObject(
        { [LABEL_ZONE]: "dc1-b" },
      );
      await stopAll();
    }, 300_000);

    test("a decommissioned machine's NotReady node is deleted; no other node is", async () => {
      const prefix = uniqueName("dc");
      const [old, live, stranger] = [`${prefix}-old`, `${prefix}-live`, `${prefix}-stranger`];
      start(configFile(`inventory: { machines: [{ name: ${old}, decommissioned: true }, { name: ${live} }] }`), [
        "--node-monitor-period=1s",
      ]);
      for (const name of [old, live, stranger]) {
        await admin.create(NODES, kubeletNode(name));
        await admin.patch(
          NODES,
          name,
          { status: { conditions: [readyCondition(false)] } },
          { subresource: "status", type: "strategic" },
        );
      }
      const gone = async (name: string): Promise<boolean> =>
        admin.get(NODES, name).then(
          () => false,
          (error: unknown) => isNotFound(error),
        );
      await eventually("the decommissioned node to be deleted", () => gone(old), 60_000);
      // Several more lifecycle passes (one a second) must leave the others alone.
      await Bun.sleep(5_000);
      expect(await gone(live)).toBe(false);
      expect(await gone(stranger)).toBe(false);
      await stopAll();
    }, 120_000);
  },
);
