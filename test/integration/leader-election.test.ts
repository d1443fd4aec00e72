/**
 * HA the Kubernetes way: two replicas on one Lease, exactly one leads; a leader asked to stop renews the
 * Lease until its in-flight syncs are done, then releases it so the standby takes over at once; a leader
 * that dies leaves the standby waiting for expiry, then finishes what it left, with controller threads too.
 */
import { describe, expect, test } from "bun:test";
import { LEASES, NODES, SERVICES } from "../../src/kube/api.ts";
import type { Lease, Node, Service } from "../../src/kube/objects.ts";
import { startCcm, type CcmProcess } from "../harness/ccm.ts";
import { controlPlane } from "../harness/control-plane.ts";
import { startFakeCloud } from "../harness/fake-cloud.ts";
import { kubeletNode, loadBalancerService, uniqueName } from "../harness/fixtures.ts";
import { grantLease } from "../harness/rbac.ts";
import { eventually } from "../harness/wait.ts";
import { createNamespace, ensureUnderWay, exitOnLeaseTaken } from "./support.ts";

const ACQUIRED = /successfully acquired lease kube-system\/\S+ as (\S+)/;

async function replica(kubeconfig: string, lease: string, extra: string[] = []): Promise<CcmProcess> {
  await grantLease(lease);
  return startCcm({
    args: [
      "--cloud-provider=fake",
      `--kubeconfig=${kubeconfig}`,
      "--secure-port=0",
      "--configure-cloud-routes=false",
      "--controllers=cloud-node-controller",
      `--leader-elect-resource-name=${lease}`,
      ...extra,
    ],
  });
}

async function holder(lease: string): Promise<string | undefined> {
  const cp = await controlPlane();
  const obj = await cp.admin.get<Lease>(LEASES, lease, { namespace: "kube-system" });
  return obj.spec?.holderIdentity;
}

const identityOf = (line: string): string => ACQUIRED.exec(line)?.[1] ?? "";

/** A fake cloud whose EnsureLoadBalancer takes `latency`, a namespace, and short leader-election flags. */
async function slowEnsure(name: string, latency: string, extra: string[] = []) {
  const cp = await controlPlane();
  const cloud = startFakeCloud(`faults: { operationLatency: { EnsureLoadBalancer: ${latency} } }\n`);
  const namespace = uniqueName(name);
  await createNamespace(cp.admin, namespace);
  const flags = [
    `--cloud-config=${cloud.configFile}`,
    "--controllers=service-lb-controller",
    // Services other tests left in the cluster take workers of their own, not this one's turn.
    "--concurrent-service-syncs=100",
    "--leader-elect-lease-duration=4s",
    "--leader-elect-renew-deadline=3s",
    "--leader-elect-retry-period=1s",
    ...extra,
  ];
  return { cp, cloud, lease: uniqueName(name), namespace, flags };
}

describe("leader election", () => {
  test("two replicas: exactly one leads; SIGTERM hands over within 3 s and the old leader exits 0", async () => {
    const cp = await controlPlane();
    const lease = uniqueName("ha-term");
    const a = await replica(cp.kubeconfigs.ccm, lease);
    const aId = identityOf(await a.waitForLine(ACQUIRED));
    const b = await replica(cp.kubeconfigs.ccm, lease);
    await b.waitForLine(/attempting to acquire leader lease/);
    await Bun.sleep(5000);
    expect(b.lines.some((l) => ACQUIRED.test(l))).toBe(false);
    expect(await holder(lease)).toBe(aId);

    expect(await a.stop("SIGTERM")).toBe(0);
    const releasedAt = Date.now();
    expect(a.output()).toMatch(/released lease/);
    const bId = identityOf(await b.waitForLine(ACQUIRED, 3000));
    expect(Date.now() - releasedAt).toBeLessThan(3000);
    expect(bId).not.toBe(aId);
    expect(await holder(lease)).toBe(bId);
    // client-go counts every acquisition, a takeover of a released Lease too (A created it at 0).
    const taken = await cp.admin.get<Lease>(LEASES, lease, { namespace: "kube-system" });
    expect(taken.spec).toMatchObject({ leaseTransitions: 1, leaseDurationSeconds: 15 });
    expect(await b.stop("SIGTERM")).toBe(0);
  }, 60_000);

  test("SIGTERM with a sync in flight: the leader renews its Lease through the drain, the standby leads after the release", async () => {
    const { cp, cloud, lease, namespace, flags } = await slowEnsure("ha-drain", "9s");
    const a = await replica(cp.kubeconfigs.ccm, lease, flags);
    await a.waitForLine(ACQUIRED);
    const b = await replica(cp.kubeconfigs.ccm, lease, flags);
    await b.waitForLine(/attempting to acquire leader lease/);
    await ensureUnderWay(cp.admin, namespace, "web");
    const stopped = a.stop("SIGTERM");
    await b.waitForLine(ACQUIRED, 30_000);
    // Had the renewals stopped with the signal, the Lease would have expired 4 s into the 9 s ensure.
    const served = await cp.admin.get<Service>(SERVICES, "web", { namespace });
    expect(served.status?.loadBalancer?.ingress?.length).toBe(1);
    expect(a.output()).toMatch(/released lease/);
    expect(await stopped).toBe(0);
    expect(await b.stop("SIGTERM")).toBe(0);
    expect(cloud.engine.loadBalancers().filter((lb) => lb.service === `${namespace}/web`)).toHaveLength(1);
    await cloud.stop();
  }, 90_000);

  test("SIGTERM with a sync that outlasts --shutdown-grace-period: the Lease is kept to expire, not handed back", async () => {
    const { cp, cloud, lease, namespace, flags } = await slowEnsure("ha-undrained", "20s", [
      "--shutdown-grace-period=2s",
    ]);
    const a = await replica(cp.kubeconfigs.ccm, lease, flags);
    const aId = identityOf(await a.waitForLine(ACQUIRED));
    await ensureUnderWay(cp.admin, namespace, "web");
    expect(await a.stop("SIGTERM")).toBe(0);
    // The ensure was still running when the process stopped: a standby must not lead beside it.
    expect(a.output()).toMatch(/keeping lease kube-system\/\S+ until it expires: work was still in flight/);
    expect(a.output()).not.toMatch(/released lease/);
    expect(await holder(lease)).toBe(aId);
    await cloud.stop();
  }, 90_000);

  test("another holder takes the Lease mid-sync: the leader exits 1 at once, without waiting for the sync", async () => {
    const cp = await controlPlane();
    const cloud = startFakeCloud("faults: { operationLatency: { EnsureLoadBalancer: 60s } }\n");
    const lease = uniqueName("ha-lost");
    const namespace = uniqueName("ha-lost");
    await createNamespace(cp.admin, namespace);
    const a = await replica(cp.kubeconfigs.ccm, lease, [
      `--cloud-config=${cloud.configFile}`,
      "--controllers=service-lb-controller",
      // Services other tests left in the cluster take workers of their own, not this one's turn.
      "--concurrent-service-syncs=100",
      "--leader-elect-lease-duration=6s",
      "--leader-elect-renew-deadline=4s",
      "--leader-elect-retry-period=1s",
    ]);
    await a.waitForLine(ACQUIRED);
    await ensureUnderWay(cp.admin, namespace, "web");
    const { code, afterMs } = await exitOnLeaseTaken(cp.admin, a, lease, 40_000);
    expect(code).toBe(1);
    expect(a.output()).toMatch(/leaderelection lost/);
    // The renew deadline (4 s) and a retry, not the drain: the ensure's 60 s, cut at the 20 s grace period.
    expect(afterMs).toBeLessThan(12_000);
    await cloud.stop();
  }, 90_000);

  test("SIGKILL to the leader: the standby leads only after the lease expires", async () => {
    const cp = await controlPlane();
    const lease = uniqueName("ha-kill");
    const timing = [
      "--leader-elect-lease-duration=6s",
      "--leader-elect-renew-deadline=4s",
      "--leader-elect-retry-period=1s",
    ];
    const a = await replica(cp.kubeconfigs.ccm, lease, timing);
    const aId = identityOf(await a.waitForLine(ACQUIRED));
    const b = await replica(cp.kubeconfigs.ccm, lease, timing);
    await b.waitForLine(/attempting to acquire leader lease/);
    await Bun.sleep(2000);
    const killedAt = Date.now();
    expect(await a.stop("SIGKILL")).not.toBe(0);
    expect(await holder(lease)).toBe(aId);
    const bId = identityOf(await b.waitForLine(ACQUIRED, 20_000));
    const waited = Date.now() - killedAt;
    // The standby counts the lease duration from the last renewal it saw (at most one retry period before the kill).
    expect(waited).toBeGreaterThanOrEqual(4000);
    expect(bId).not.toBe(aId);
    expect(await b.stop("SIGTERM")).toBe(0);
  }, 60_000);

  test("SIGKILL to a leader with controller threads mid-work: the standby's threads finish it, one load balancer per Service", async () => {
    const cp = await controlPlane();
    const cloud = startFakeCloud("autoInstances: true\nfaults: { latency: 300ms }\n");
    const lease = uniqueName("ha-threads");
    const namespace = uniqueName("ha-threads");
    await createNamespace(cp.admin, namespace);
    const nodes = Array.from({ length: 6 }, (_, i) => `${namespace}-node-${i}`);
    const services = Array.from({ length: 8 }, (_, i) => `web-${i}`);
    for (const name of nodes) await cp.admin.create(NODES, kubeletNode(name));
    for (const name of services) await cp.admin.create(SERVICES, loadBalancerService(name, namespace));
    const flags = [
      `--cloud-config=${cloud.configFile}`,
      "--controllers=cloud-node-controller,service-lb-controller",
      "--controller-threads=2",
      "--leader-elect-lease-duration=6s",
      "--leader-elect-renew-deadline=4s",
      "--leader-elect-retry-period=1s",
    ];
    const a = await replica(cp.kubeconfigs.ccm, lease, flags);
    await a.waitForLine(ACQUIRED);
    const b = await replica(cp.kubeconfigs.ccm, lease, flags);
    await b.waitForLine(/attempting to acquire leader lease/);
    const ingress = async (name: string): Promise<boolean> =>
      Boolean((await cp.admin.get<Service>(SERVICES, name, { namespace })).status?.loadBalancer?.ingress?.length);
    // Killed with some Services served and others not: each ensure waits 300 ms for the cloud.
    await eventually("a first Service served", async () => (await Promise.all(services.map(ingress))).some(Boolean));
    expect(await a.stop("SIGKILL")).not.toBe(0);
    expect((await Promise.all(services.map(ingress))).every(Boolean)).toBe(false);
    await b.waitForLine(ACQUIRED, 20_000);
    await b.waitForLine(/running 2 controller thread\(s\)/);
    for (const name of services) await eventually(`${name} served by the new leader`, () => ingress(name), 30_000);
    for (const name of nodes)
      await eventually(`${name} initialised`, async () => (await cp.admin.get<Node>(NODES, name)).spec?.providerID);
    const balancers = cloud.engine.loadBalancers().filter((lb) => lb.service.startsWith(`${namespace}/`));
    expect(balancers.map((lb) => lb.service).sort()).toEqual(services.map((s) => `${namespace}/${s}`).sort());
    expect(await b.stop("SIGTERM")).toBe(0);
    for (const name of nodes) await cp.admin.delete(NODES, name);
    await cloud.stop();
  }, 90_000);
});
