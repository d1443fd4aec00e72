import { afterAll, describe, expect, test } from "bun:test";
import type { Config } from "../config/config.ts";
import { LEASES } from "../kube/api.ts";
import { localConnection } from "../../test/harness/local-api.ts";
import { TokenBucket } from "../kube/token-bucket.ts";
import { createMetrics } from "../metrics/metrics.ts";
import { clientFactory } from "./clients.ts";
import { leaderElectionClient } from "./manager.ts";

const agents: string[] = [];
const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(request) {
    agents.push(request.headers.get("user-agent") ?? "");
    // A Lease whose answer never comes (a request lost on the way).
    if (request.url.includes("/leases/stuck")) await Bun.sleep(60_000);
    const metadata = { name: "cloud-controller-manager", namespace: "kube-system", resourceVersion: "1" };
    return Response.json({ apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata, spec: {} });
  },
});
afterAll(() => void server.stop(true));

describe("the leader-election client", () => {
  test("a Lease request does not wait behind the controllers' rate-limit reservations", async () => {
    const connection = localConnection(server.port);
    // The controllers' bucket at QPS 1 with 100 reservations ahead: their next request waits ~100 s.
    const limiter = TokenBucket.create(1, 1);
    for (let i = 0; i < 100; i++) limiter.reserve();
    const deps = {
      config: { kubeApiQps: 1, kubeApiBurst: 1, leaderElection: { renewDeadlineMs: 10_000 } } as Config,
      connection,
      factory: clientFactory(createMetrics()),
      limiter,
    };
    const started = performance.now();
    const lease = await leaderElectionClient(deps).get<{ metadata: { name: string } }>(
      LEASES,
      "cloud-controller-manager",
      {
        namespace: "kube-system",
      },
    );
    expect(lease.metadata.name).toBe("cloud-controller-manager");
    expect(performance.now() - started).toBeLessThan(2000);
    expect(agents.at(-1)).toEndWith("/leader-election");
  });

  test("each Lease request gets half the renew deadline (at least 1 s), as upstream's, not the default 30 s", async () => {
    const config = { kubeApiQps: 5, kubeApiBurst: 10, leaderElection: { renewDeadlineMs: 2000 } } as Config;
    const api = leaderElectionClient({
      config,
      connection: localConnection(server.port),
      factory: clientFactory(createMetrics()),
    });
    const started = performance.now();
    await expect(api.get(LEASES, "stuck", { namespace: "kube-system" })).rejects.toThrow();
    const took = performance.now() - started;
    expect(took).toBeGreaterThanOrEqual(900);
    expect(took).toBeLessThan(5000);
  }, 20_000);
});
