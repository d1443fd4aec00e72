/**
 * HA the Kubernetes way: two replicas on one Lease, exactly one leads; a leader asked to stop releases the
 * Lease so the standby takes over at once; a leader that dies leaves the standby waiting for expiry.
 */
import { describe, expect, test } from "bun:test";
import { LEASES } from "../../src/kube/api.ts";
import type { Lease } from "../../src/kube/objects.ts";
import { startCcm, type CcmProcess } from "../harness/ccm.ts";
import { controlPlane } from "../harness/control-plane.ts";
import { uniqueName } from "../harness/fixtures.ts";
import { grantLease } from "../harness/rbac.ts";

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
    expect(await b.stop("SIGTERM")).toBe(0);
  }, 60_000);

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
});
