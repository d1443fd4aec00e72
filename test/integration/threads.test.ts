/**
 * `--controller-threads`: controllers run in worker threads and still do their job; a thread that dies
 * (an uncaught error in provider background work, injected by the fake cloud) stops the manager with a
 * non-zero status instead of leaving it half-running. The single-thread mode behaves the same way.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { NAMESPACES, SERVICES } from "../../src/kube/api.ts";
import type { Service } from "../../src/kube/objects.ts";
import { freePort } from "../../scripts/control-plane/ports.ts";
import { startCcm } from "../harness/ccm.ts";
import { controlPlane } from "../harness/control-plane.ts";
import { startFakeCloud } from "../harness/fake-cloud.ts";
import { loadBalancerService, uniqueName } from "../harness/fixtures.ts";
import { grantLease } from "../harness/rbac.ts";
import { eventually } from "../harness/wait.ts";

describe("controller threads", () => {
  test("two threads: controllers in both work, health and leadership stay in the main thread", async () => {
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
      ],
    });
    await ccm.waitForLine(
      /running 2 controller thread\(s\): \[cloud-node-controller, cloud-node-lifecycle-controller\] \[service-lb-controller, node-route-controller\]/,
    );
    await cp.admin.create(SERVICES, loadBalancerService("web", namespace));
    const svc = await eventually("an ingress address from the service thread", async () => {
      const s = await cp.admin.get<Service>(SERVICES, "web", { namespace });
      return s.status?.loadBalancer?.ingress?.length ? s : undefined;
    });
    expect(svc.status?.loadBalancer?.ingress?.[0]?.ip).toMatch(/^203\.0\.113\./);
    expect(ccm.output()).toMatch(/thread-1\] started 2 controller\(s\): node-route-controller, service-lb-controller/);
    // /metrics merges the threads' registries: each thread's snapshot must survive the trip between threads.
    const metrics = await fetch(`https://127.0.0.1:${port}/metrics`, {
      tls: { rejectUnauthorized: false },
    } as RequestInit);
    expect(metrics.status).toBe(200);
    const body = await metrics.text();
    expect(body).toContain('workqueue_adds_total{name="service"}');
    expect(body).toMatch(/rest_client_requests_total\{code="201",method="POST",host="[^"]+"\} [1-9]/);
    expect(body).toMatch(/cloud_controller_manager_event_loop_lag_seconds_count [1-9]/);
    expect(await ccm.stop("SIGTERM")).toBe(0);
    expect(ccm.output()).toContain("released lease");
    await cloud.stop();
  }, 90_000);

  for (const threads of [0, 2]) {
    test(`a thread that dies stops the manager with a non-zero status (--controller-threads=${threads})`, async () => {
      const cp = await controlPlane();
      const cloud = startFakeCloud();
      writeFileSync(cloud.configFile, JSON.stringify({ endpoint: cloud.endpoint, faults: { crashAfter: "1s" } }));
      const ccm = startCcm({
        args: [
          "--cloud-provider=fake",
          `--cloud-config=${cloud.configFile}`,
          `--kubeconfig=${cp.kubeconfigs.ccm}`,
          "--secure-port=0",
          "--leader-elect=false",
          "--configure-cloud-routes=false",
          `--controller-threads=${threads}`,
        ],
      });
      const code = await Promise.race([ccm.exited, Bun.sleep(30_000).then(() => "still running")]);
      expect(code).not.toBe("still running");
      expect(code).not.toBe(0);
      expect(ccm.output()).toContain("injected crash");
      if (threads > 0) expect(ccm.output()).toMatch(/controller thread \d \[[^\]]+\] ended unexpectedly/);
      await cloud.stop();
    }, 60_000);
  }
});
