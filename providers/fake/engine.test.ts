import { describe, expect, test } from "bun:test";
import { FakeCloud } from "./engine.ts";
import { parseFakeConfig } from "./config.ts";

function cloud(yaml: string): FakeCloud {
  const parsed = parseFakeConfig(yaml);
  if (!parsed.ok) throw new Error(parsed.errors.join("; "));
  return new FakeCloud(parsed.config);
}

const lbRequest = {
  name: "lb1",
  clusterName: "k",
  service: "ns/web",
  serviceUID: "u",
  ports: [],
  ipFamilies: [],
  annotations: {},
  sourceRanges: [],
  nodes: ["a"],
};

describe("fake cloud faults", () => {
  test("operationLatency parses per operation and rejects bad durations", () => {
    const ok = parseFakeConfig("faults: { operationLatency: { EnsureLoadBalancerDeleted: 2s } }");
    expect(ok.ok && ok.config.faults.operationLatencyMs).toEqual({ EnsureLoadBalancerDeleted: 2000 });
    const bad = parseFakeConfig("faults: { operationLatency: { X: soon } }");
    expect(bad.ok ? [] : bad.errors).toEqual(['faults.operationLatency.X: "soon" is not a duration such as 50ms']);
  });

  test("a call whose client goes away during its latency changes nothing", async () => {
    const engine = cloud("");
    await engine.call("EnsureLoadBalancer", lbRequest);
    engine.setFaults({ ...engine.faults, operationLatencyMs: { EnsureLoadBalancerDeleted: 10_000 } });
    const client = new AbortController();
    const call = engine.call("EnsureLoadBalancerDeleted", { name: "lb1" }, client.signal).catch((e: unknown) => e);
    await Bun.sleep(10);
    client.abort();
    expect(await call).toBeInstanceOf(Error);
    expect(engine.loadBalancers().map((lb) => lb.name)).toEqual(["lb1"]);
    engine.setFaults({ ...engine.faults, operationLatencyMs: {} });
    await engine.call("EnsureLoadBalancerDeleted", { name: "lb1" });
    expect(engine.loadBalancers()).toEqual([]);
  });

  test("Ensure and Update answer without echoing the node list; the load balancer keeps it", async () => {
    const engine = cloud("");
    const ensured = (await engine.call("EnsureLoadBalancer", lbRequest)) as { loadBalancer: Record<string, unknown> };
    expect(ensured.loadBalancer).not.toHaveProperty("nodes");
    expect(ensured.loadBalancer).toMatchObject({ name: "lb1", ensureCount: 1 });
    expect(await engine.call("UpdateLoadBalancer", { ...lbRequest, nodes: ["a", "b"] })).toEqual({});
    const got = (await engine.call("GetLoadBalancer", { name: "lb1" })) as { loadBalancer: { nodes: string[] } };
    expect(got.loadBalancer.nodes).toEqual(["a", "b"]);
    expect(engine.loadBalancers()[0]).toMatchObject({ nodes: ["a", "b"], updateCount: 1 });
  });

  test("CreateRoute answers with the route as ListRoutes reports it", async () => {
    const engine = cloud("autoInstances: true");
    const created = (await engine.call("CreateRoute", {
      clusterName: "k",
      nameHint: "uid",
      targetNode: "a",
      destinationCIDR: "10.0.1.0/24",
    })) as { route: unknown };
    const listed = (await engine.call("ListRoutes", { clusterName: "k" })) as { routes: unknown[] };
    expect(listed.routes).toEqual([created.route]);
  });
});
