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
  fetch(request) {
    agents.push(request.headers.get("user-agent") ?? "");
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
      config: { kubeApiQps: 1, kubeApiBurst: 1 } as Config,
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
});
