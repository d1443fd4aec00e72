/**
 * `--controller-threads`: controllers run in worker threads and still do their job, each key on one thread
 * (several Services spread over both threads, each ensured exactly once); a thread that dies (an uncaught
 * error in provider background work, injected by the fake cloud) stops the manager with a non-zero status
 * instead of leaving it half-running, as in the single-thread mode; losing the Lease ends the process at
 * once, every thread and in-flight sync with it.
 * However many threads, the API server sees one list and one watch of Nodes and of Services (the audit log
 * counts them): the main thread's informers feed every thread.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { SERVICES } from "../../src/kube/api.ts";
import type { Service } from "../../src/kube/objects.ts";
import { shardOf } from "../../src/kube/shard.ts";
import { readHostFile, usableCpus } from "../../src/util/cpus.ts";
import { auditOffset, countRequests } from "../../scripts/bench/audit.ts";
import type { ControlPlane } from "../../scripts/control-plane/control-plane.ts";
import { freePort } from "../../scripts/control-plane/ports.ts";
import { killCcms, startCcm, type CcmProcess } from "../harness/ccm.ts";
import { controlPlane } from "../harness/control-plane.ts";
import { startFakeCloud, type TestFakeCloud } from "../harness/fake-cloud.ts";
import { kubeletNode, loadBalancerService, uniqueName } from "../harness/fixtures.ts";
import { grantLease } from "../harness/rbac.ts";
import { eventually } from "../harness/wait.ts";
import { deleteNodes, getNode, isInitialised, registerNode } from "./nodes.ts";
import { createNamespace, ensureUnderWay, exitOnLeaseTaken } from "./support.ts";

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

/** `count` names `prefix-0`, `prefix-1`, … taken so that each of two threads owns half of the keys. */
function spreadOverTwo(prefix: string, count: number, key: (name: string) => string = (n) => n): string[] {
  const names: string[] = [];
  const per = [0, 0];
  for (let i = 0; names.length < count; i++) {
    const name = `${prefix}-${i}`;
    const thread = shardOf(key(name), 2);
    if ((per[thread] ?? 0) >= count / 2) continue;
    per[thread] = (per[thread] ?? 0) + 1;
    names.push(name);
  }
  return names;
}

const CACHED = ["list nodes", "watch nodes", "list services", "watch services"];

/**
 * A manager with `threads` controller threads initialises fresh Nodes and ensures fresh LoadBalancer
 * Services, on both shards; the lists and watches of nodes and services it sent meanwhile, by verb.
 */
async function cacheRequests(cp: ControlPlane, cloud: TestFakeCloud, threads: number): Promise<Record<string, number>> {
  const namespace = uniqueName(`one-watch-${threads}`);
  await createNamespace(cp.admin, namespace);
  const nodes = spreadOverTwo(uniqueName("one-watch"), 4);
  const services = spreadOverTwo("web", 4, (name) => `${namespace}/${name}`);
  for (const name of nodes) await registerNode(cp, kubeletNode(name));
  for (const name of services) await cp.admin.create(SERVICES, loadBalancerService(name, namespace));
  const offset = auditOffset(cp.auditLog);
  const ccm = await startWithoutRoutes(cloud, ["--leader-elect=false", `--controller-threads=${threads}`]);
  for (const name of nodes) await eventually(`${name} initialised`, async () => isInitialised(await getNode(cp, name)));
  for (const name of services)
    await eventually(`an ingress address for ${name}`, async () => {
      const s = await cp.admin.get<Service>(SERVICES, name, { namespace });
      return Boolean(s.status?.loadBalancer?.ingress?.length);
    });
  expect(await ccm.stop("SIGTERM")).toBe(0);
  await deleteNodes(cp, nodes);
  const { byVerb } = countRequests(cp.auditLog, offset);
  return Object.fromEntries(CACHED.map((request) => [request, byVerb[request] ?? 0]));
}

describe("controller threads", () => {
  // Each test starts its own managers: one left running by a failed test would act on later files' objects.
  afterEach(killCcms);

  test("two threads: keys split over both, each Service ensured once; health and leadership in the main thread", async () => {
    const cp = await controlPlane();
    const cloud = startFakeCloud();
    const namespace = uniqueName("threads");
    await createNamespace(cp.admin, namespace);
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
        // A bearer token: the threads get their Authorization header from the main thread's kubeconfig.
        `--kubeconfig=${cp.kubeconfigs.ccmToken}`,
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

  test("one list and one watch of Nodes and of Services, with or without threads", async () => {
    const cp = await controlPlane();
    const cloud = startFakeCloud("autoInstances: true");
    const single = await cacheRequests(cp, cloud, 0);
    const threaded = await cacheRequests(cp, cloud, 2);
    expect(single).toEqual({ "list nodes": 1, "watch nodes": 1, "list services": 1, "watch services": 1 });
    expect(threaded).toEqual(single);
    await cloud.stop();
  }, 90_000);

  test("more threads than the CPUs the process may use start, with a warning", async () => {
    const cloud = startFakeCloud();
    const cpus = usableCpus(availableParallelism(), readHostFile);
    const threads = cpus + 1;
    const ccm = await startWithoutRoutes(cloud, ["--leader-elect=false", `--controller-threads=${threads}`]);
    await ccm.waitForLine(new RegExp(`running ${threads} controller thread\\(s\\)`));
    await ccm.waitForLine(new RegExp(`${threads} controller threads on ${cpus} CPU\\(s\\): threads beyond the CPUs`));
    expect(await ccm.stop("SIGTERM")).toBe(0);
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

  test("leadership lost (another holder takes the Lease): the manager exits 1 at once, threads and in-flight syncs with it", async () => {
    const cp = await controlPlane();
    const cloud = startFakeCloud();
    writeFileSync(
      cloud.configFile,
      JSON.stringify({ endpoint: cloud.endpoint, faults: { operationLatency: { EnsureLoadBalancer: "60s" } } }),
    );
    const lease = uniqueName("threads-lost");
    const namespace = uniqueName("threads-lost");
    await grantLease(lease);
    await createNamespace(cp.admin, namespace);
    const ccm = await startWithoutRoutes(cloud, [
      `--leader-elect-resource-name=${lease}`,
      "--leader-elect-lease-duration=6s",
      "--leader-elect-renew-deadline=4s",
      "--leader-elect-retry-period=1s",
      "--controller-threads=2",
      // Services other tests left in the cluster take workers of their own, not this one's turn.
      "--concurrent-service-syncs=100",
    ]);
    for (const thread of [0, 1]) await ccm.waitForLine(new RegExp(`thread-${thread}\\] started 3 controller\\(s\\)`));
    // A sync in flight that a drain would wait for (up to the 20 s shutdown grace period).
    await ensureUnderWay(cp.admin, namespace, "web");
    const { code, afterMs } = await exitOnLeaseTaken(cp.admin, ccm, lease, 30_000);
    expect(code).toBe(1);
    expect(ccm.output()).toMatch(/leaderelection lost/);
    // The renew deadline (4 s) and a retry, not the ensure's 60 s nor the grace period's 20 s.
    expect(afterMs).toBeLessThan(12_000);
    await cloud.stop();
  }, 60_000);
});
