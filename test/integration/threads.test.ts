/**
 * `--controller-threads`: controllers run in worker threads and still do their job, each key on one thread
 * (several Services spread over both threads, each ensured exactly once); a thread that dies (an uncaught
 * error in provider background work, injected by the fake cloud) stops the manager with a non-zero status
 * instead of leaving it half-running, as in the single-thread mode; losing the Lease stops every thread.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { LEASES, NAMESPACES, SERVICES } from "../../src/kube/api.ts";
import type { Lease, Service } from "../../src/kube/objects.ts";
import { shardOf } from "../../src/kube/shard.ts";
import { freePort } from "../../scripts/control-plane/ports.ts";
import { startCcm, type CcmProcess } from "../harness/ccm.ts";
import { controlPlane } from "../harness/control-plane.ts";
import { startFakeCloud, type TestFakeCloud } from "../harness/fake-cloud.ts";
import { loadBalancerService, uniqueName } from "../harness/fixtures.ts";
import { grantLease } from "../harness/rbac.ts";
import { eventually } from "../harness/wait.ts";

/** A manager on the fake cloud without serving or routes, with these flags added. */
async function startWithoutRoutes(cloud: TestFakeCloud, extra: readonly string[]): Promise<CcmProcess> {
  const cp = await controlPlane();
  return startCcm({
    args: [
      "--cloud-provider=fake",
      `--cloud-config=${cloud.configFile}`,
      `--kubeconfig=${cp.kubeconfigs.ccm}`,
      "--secure-port=0",
      "--configure-cloud-routes=false",
      ...extra,
    ],
  });
}

describe("controller threads", () => {
  test("two threads: keys split over both, each Service ensured once; health and leadership in the main thread", async () => {
    const cp = await controlPlane();
    const cloud = startFakeCloud();
    const namespace = uniqueName("threads");
    await cp.admin.create(NAMESPACES, { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
    const lease = uniqueName("threads");
    await grantLease(lease);
    const port = await freePort();
    const serving = [
      `--secure-port=${port}`,
      "--bind-address=127.0.0.1",
      "--authorization-always-allow-paths=/healthz,/metrics",
    ];
    const ccm = startCcm({
      args: [
        "--cloud-provider=fake",
        `--cloud-config=${cloud.configFile}`,
        `--kubeconfig=${cp.kubeconfigs.ccm}`,
        ...serving,
        "--cluster-cidr=10.244.0.0/16",
        `--leader-elect-resource-name=${lease}`,
        "--controller-threads=2",
        "-v=4",
      ],
    });
    await ccm.waitForLine(
      /running 2 controller thread\(s\); keys split by hash over every thread: cloud-node-controller, cloud-node-lifecycle-controller, service-lb-controller; on thread 0 alone: node-route-controller/,
    );
    const names = Array.from({ length: 8 }, (_, i) => `web-${i}`);
    const threadOf = (name: string): number => shardOf(`${namespace}/${name}`, 2);
    // Eight keys land on both threads for any namespace but a vanishingly rare one; the test needs both.
    expect(new Set(names.map(threadOf)).size).toBe(2);
    for (const name of names) await cp.admin.create(SERVICES, loadBalancerService(name, namespace));
    for (const name of names) {
      const svc = await eventually(`an ingress address for ${name}`, async () => {
        const s = await cp.admin.get<Service>(SERVICES, name, { namespace });
        return s.status?.loadBalancer?.ingress?.length ? s : undefined;
      });
      expect(svc.status?.loadBalancer?.ingress?.[0]?.ip).toMatch(/^203\.0\.113\./);
    }
    // Each Service's load balancer was ensured once, by the one thread its key hashes to.
    const lbs = cloud.engine.loadBalancers().filter((lb) => lb.service.startsWith(`${namespace}/`));
    expect(lbs.map((lb) => lb.service).sort()).toEqual(names.map((n) => `${namespace}/${n}`).sort());
    for (const lb of lbs) expect(lb.ensureCount).toBe(1);
    for (const name of names) {
      const ensuring = ccm.lines.filter((l) => l.includes(`ensuring load balancer for service ${namespace}/${name}`));
      expect(ensuring).toHaveLength(1);
      expect(ensuring[0]).toContain(`thread-${threadOf(name)}`);
    }
    expect(ccm.output()).toMatch(
      /thread-0\] started 4 controller\(s\): cloud-node-controller, cloud-node-lifecycle-controller, node-route-controller, service-lb-controller/,
    );
    expect(ccm.output()).toMatch(
      /thread-1\] started 3 controller\(s\): cloud-node-controller, cloud-node-lifecycle-controller, service-lb-controller/,
    );
    // /metrics merges the threads' registries: each thread's snapshot must survive the trip between threads.
    const metrics = await fetch(`https://127.0.0.1:${port}/metrics`, {
      tls: { rejectUnauthorized: false },
    } as RequestInit);
    expect(metrics.status).toBe(200);
    const body = await metrics.text();
    expect(body).toContain('workqueue_adds_total{name="service"}');
    expect(body).toMatch(/rest_client_requests_total\{code="201",method="POST",host="[^"]+"\} [1-9]/);
    expect(body).toMatch(/cloud_controller_manager_event_loop_lag_seconds_count [1-9]/);
    // Running on both threads, still one running controller.
    expect(body).toContain('running_managed_controllers{name="service",manager="cloud-controller-manager"} 1');
    expect(await ccm.stop("SIGTERM")).toBe(0);
    expect(ccm.output()).toContain("released lease");
    await cloud.stop();
  }, 90_000);

  for (const threads of [0, 2]) {
    test(`a thread that dies stops the manager with a non-zero status (--controller-threads=${threads})`, async () => {
      const cloud = startFakeCloud();
      writeFileSync(cloud.configFile, JSON.stringify({ endpoint: cloud.endpoint, faults: { crashAfter: "1s" } }));
      const ccm = await startWithoutRoutes(cloud, ["--leader-elect=false", `--controller-threads=${threads}`]);
      const code = await Promise.race([ccm.exited, Bun.sleep(30_000).then(() => "still running")]);
      expect(code).not.toBe("still running");
      expect(code).not.toBe(0);
      expect(ccm.output()).toContain("injected crash");
      if (threads > 0) expect(ccm.output()).toMatch(/controller thread \d \[[^\]]+\] ended unexpectedly/);
      await cloud.stop();
    }, 60_000);
  }

  test("leadership lost (another holder takes the Lease): every thread stops and the manager exits 1", async () => {
    const cp = await controlPlane();
    const cloud = startFakeCloud();
    const lease = uniqueName("threads-lost");
    await grantLease(lease);
    const ccm = await startWithoutRoutes(cloud, [
      `--leader-elect-resource-name=${lease}`,
      "--leader-elect-lease-duration=6s",
      "--leader-elect-renew-deadline=4s",
      "--leader-elect-retry-period=1s",
      "--controller-threads=2",
    ]);
    for (const thread of [0, 1]) await ccm.waitForLine(new RegExp(`thread-${thread}\\] started 3 controller\\(s\\)`));
    const held = await cp.admin.get<Lease>(LEASES, lease, { namespace: "kube-system" });
    await cp.admin.update<Lease>(LEASES, {
      ...held,
      spec: {
        ...held.spec,
        holderIdentity: "another-replica",
        renewTime: new Date().toISOString().replace("Z", "000Z"),
      },
    });
    const code = await Promise.race([ccm.exited, Bun.sleep(30_000).then(() => "still running")]);
    expect(code).toBe(1);
    expect(ccm.output()).toMatch(/leaderelection lost/);
    for (const thread of [0, 1])
      expect(ccm.output()).toMatch(new RegExp(`thread-${thread}\\] shutting down: controllers stop taking work`));
    expect(ccm.output()).not.toContain("did not finish within the shutdown grace period");
    await cloud.stop();
  }, 60_000);
});
