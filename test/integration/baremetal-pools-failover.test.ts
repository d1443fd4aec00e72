/**
 * Two bare-metal replicas reading their pools from AddressPool objects, on one Lease. The leader hands out
 * addresses; kill -9 of the leader; the standby takes the Lease once it expires, rebuilds its table from
 * the Services and the pools, and no Service changes address: new Services get free ones, and the pool's
 * status keeps counting right.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LEASES, SERVICES, type KubeApi } from "../../src/kube/api.ts";
import type { KubeObject, Lease, Service } from "../../src/kube/objects.ts";
import { POOLS_HASH_ANNOTATION } from "../../providers/shared/address-pools/config-guard.ts";
import { ADDRESS_POOLS } from "../../providers/shared/address-pools/crd.ts";
import { GROUP, VERSION } from "../../providers/shared/crd.ts";
import { startCcm, type CcmProcess } from "../harness/ccm.ts";
import { controlPlane } from "../harness/control-plane.ts";
import { loadBalancerService, uniqueName } from "../harness/fixtures.ts";
import { grantLease } from "../harness/rbac.ts";
import { eventually } from "../harness/wait.ts";
import { createNamespace, eventsFor } from "./support.ts";

const POOL_ANNOTATION = "baremetal.cloudprovider.io/address-pool";
const ACQUIRED = /successfully acquired lease kube-system\/\S+ as (\S+)/;
const POOL_ADDRESSES = ["172.30.50.0", "172.30.50.1", "172.30.50.2", "172.30.50.3", "172.30.50.4", "172.30.50.5"];

interface AddressPool extends KubeObject {
  spec: Record<string, unknown>;
  status?: { used?: number; free?: string };
}

const ingressIPs = (svc: Service): string[] => (svc.status?.loadBalancer?.ingress ?? []).map((i) => i.ip ?? "");

describe("bare-metal failover with AddressPool objects", () => {
  const running: CcmProcess[] = [];
  afterAll(async () => {
    for (const ccm of running) await ccm.stop("SIGKILL").catch(() => undefined);
  });

  async function replica(kubeconfig: string, config: string, lease: string, extra: string[] = []): Promise<CcmProcess> {
    await grantLease(lease);
    const ccm = startCcm({
      args: [
        "--cloud-provider=baremetal",
        `--cloud-config=${config}`,
        `--kubeconfig=${kubeconfig}`,
        "--secure-port=0",
        "--configure-cloud-routes=false",
        "--controllers=service-lb-controller",
        `--leader-elect-resource-name=${lease}`,
        "--leader-elect-lease-duration=6s",
        "--leader-elect-renew-deadline=4s",
        "--leader-elect-retry-period=1s",
        ...extra,
      ],
    });
    running.push(ccm);
    return ccm;
  }

  async function addressesOf(admin: KubeApi, ns: string, names: readonly string[]): Promise<Record<string, string>> {
    const held: Record<string, string> = {};
    for (const name of names) {
      const ip = ingressIPs(await admin.get<Service>(SERVICES, name, { namespace: ns }))[0];
      if (ip === undefined) return {};
      held[name] = ip;
    }
    return held;
  }

  async function waitForAddresses(
    admin: KubeApi,
    ns: string,
    names: readonly string[],
  ): Promise<Record<string, string>> {
    return eventually(
      `${names.join(", ")} to get addresses`,
      async () => {
        const held = await addressesOf(admin, ns, names);
        return Object.keys(held).length === names.length ? held : undefined;
      },
      60_000,
    );
  }

  async function touch(admin: KubeApi, ns: string, name: string): Promise<void> {
    const patch = { metadata: { annotations: { "example.com/touched": String(Date.now()) } } };
    await admin.patch(SERVICES, name, patch, { namespace: ns, type: "merge" });
  }

  async function waitForStatus(admin: KubeApi, pool: string, used: number): Promise<void> {
    const free = String(POOL_ADDRESSES.length - used);
    await eventually(
      `pool ${pool} to count ${used} used, ${free} free`,
      async () => {
        const status = (await admin.get<AddressPool>(ADDRESS_POOLS, pool)).status;
        return status?.used === used && status.free === free;
      },
      30_000,
    );
  }

  test("kill -9 of the leader: every Service keeps its address, new ones get free addresses", async () => {
    const cp = await controlPlane();
    const admin = cp.admin;
    const ns = uniqueName("bm-ha");
    await createNamespace(admin, ns);
    const pool = uniqueName("ha");
    await admin.create(ADDRESS_POOLS, {
      apiVersion: `${GROUP}/${VERSION}`,
      kind: "AddressPool",
      metadata: { name: pool },
      spec: { addresses: ["172.30.50.0-172.30.50.5"], namespaces: [ns] },
    });
    const dir = mkdtempSync(join(tmpdir(), "baremetal-ha-"));
    const config = join(dir, "cloud.yaml");
    writeFileSync(config, "loadBalancers: { source: cluster }\n");
    const lease = uniqueName("bm-ha");

    const a = await replica(cp.kubeconfigs.ccm, config, lease);
    const aId = ACQUIRED.exec(await a.waitForLine(ACQUIRED, 60_000))?.[1];
    const b = await replica(cp.kubeconfigs.ccm, config, lease);
    await b.waitForLine(/attempting to acquire leader lease/, 60_000);

    const first = ["s0", "s1", "s2", "s3"];
    for (const name of first) await admin.create(SERVICES, loadBalancerService(name, ns), { namespace: ns });
    const before = await waitForAddresses(admin, ns, first);
    expect(new Set(Object.values(before)).size).toBe(first.length);
    for (const ip of Object.values(before)) expect(POOL_ADDRESSES).toContain(ip);
    // A hole in the middle: the freed address is the one a new Service may take, never a held one.
    await admin.delete(SERVICES, "s1", { namespace: ns });
    const kept = first.filter((n) => n !== "s1");
    await waitForStatus(admin, pool, kept.length);
    const held = Object.fromEntries(kept.map((n) => [n, before[n]!]));

    expect(await a.stop("SIGKILL")).not.toBe(0);
    // Created while nobody leads: the new leader serves it.
    await admin.create(SERVICES, loadBalancerService("during", ns), { namespace: ns });
    const bId = ACQUIRED.exec(await b.waitForLine(ACQUIRED, 30_000))?.[1];
    expect(bId).not.toBe(aId);
    await b.waitForLine(/address pools from AddressPool objects: .*ha-/, 30_000);

    await admin.create(SERVICES, loadBalancerService("after", ns), { namespace: ns });
    const fresh = await waitForAddresses(admin, ns, ["during", "after"]);
    // Every Service is synced again by the new leader: a touch forces one more pass over each.
    for (const name of kept) await touch(admin, ns, name);
    await waitForStatus(admin, pool, kept.length + 2);
    expect(await addressesOf(admin, ns, kept)).toEqual(held);
    const all = [...Object.values(held), ...Object.values(fresh)];
    expect(new Set(all).size).toBe(all.length);
    for (const ip of Object.values(fresh)) expect(POOL_ADDRESSES).toContain(ip);
    for (const name of [...kept, "during", "after"]) {
      const reasons = (await eventsFor(admin, ns, "Service", name)).map((e) => e.reason);
      expect({
        name,
        moved: reasons.filter((r) => r === "LoadBalancerAddressMoved" || r === "LoadBalancerAddressKept"),
      }).toEqual({ name, moved: [] });
    }
    expect(b.output()).not.toMatch(/LoadBalancerAddressMoved|moved .* to /);
    expect(await b.stop("SIGTERM")).toBe(0);
  }, 180_000);
  test("different host files: the new leader refuses to move any address until its file agrees", async () => {
    const cp = await controlPlane();
    const admin = cp.admin;
    const ns = uniqueName("bm-drift");
    await createNamespace(admin, ns);
    const dir = mkdtempSync(join(tmpdir(), "baremetal-drift-"));
    const base = `{ name: base, namespaces: [${ns}], addresses: ["172.30.60.0/30"] }`;
    const extra = `{ name: extra, namespaces: [${ns}], autoAssign: false, addresses: ["172.30.60.8-172.30.60.11"] }`;
    const full = `loadBalancers: { pools: [${base}, ${extra}] }\n`;
    const [fileA, fileB] = [join(dir, "a.yaml"), join(dir, "b.yaml")];
    writeFileSync(fileA, full);
    writeFileSync(fileB, `loadBalancers: { pools: [${base}] }\n`);
    const lease = uniqueName("bm-drift");

    const a = await replica(cp.kubeconfigs.ccm, fileA, lease);
    await a.waitForLine(ACQUIRED, 60_000);
    // The standby runs its controllers in a worker thread: the guard must hold there too.
    const b = await replica(cp.kubeconfigs.ccm, fileB, lease, ["--controller-threads=1"]);
    await b.waitForLine(/attempting to acquire leader lease/, 60_000);
    const inExtra = ["x0", "x1", "x2"];
    const annotations = { [POOL_ANNOTATION]: "extra" };
    for (const name of inExtra)
      await admin.create(SERVICES, loadBalancerService(name, ns, { annotations }), { namespace: ns });
    await admin.create(SERVICES, loadBalancerService("plain", ns), { namespace: ns });
    const names = [...inExtra, "plain"];
    const before = await waitForAddresses(admin, ns, names);
    for (const name of inExtra) expect(before[name]).toStartWith("172.30.60.");
    const recorded = (await admin.get<Lease>(LEASES, lease, { namespace: "kube-system" })).metadata.annotations?.[
      POOLS_HASH_ANNOTATION
    ];
    expect(recorded).toMatch(/^[0-9a-f]{16}$/);

    expect(await a.stop("SIGKILL")).not.toBe(0);
    await b.waitForLine(ACQUIRED, 30_000);
    await b.waitForLine(/address moves refused: this replica's address pools \(hash \w+\) differ/, 30_000);
    await b.waitForLine(/restored the load-balancer addresses of \d+ Service\(s\)/, 30_000);
    for (const name of names) await touch(admin, ns, name);
    await Bun.sleep(3000);
    expect(await addressesOf(admin, ns, names)).toEqual(before);
    const annotationNow = await admin.get<Lease>(LEASES, lease, { namespace: "kube-system" });
    expect(annotationNow.metadata.annotations?.[POOLS_HASH_ANNOTATION]).toBe(recorded);
    for (const name of names) {
      const reasons = (await eventsFor(admin, ns, "Service", name)).map((e) => e.reason);
      expect({ name, moved: reasons.includes("LoadBalancerAddressMoved") }).toEqual({ name, moved: false });
    }

    // The forgotten host is fixed: its file now lists the same pools, and the refusal ends.
    writeFileSync(fileB, full);
    await b.waitForLine(/address pools agree with the previous leader's again/, 30_000);
    expect(await addressesOf(admin, ns, names)).toEqual(before);
    expect(await b.stop("SIGTERM")).toBe(0);
  }, 180_000);
});
