import { describe, expect, test } from "bun:test";
import { kwokConfig, lastHeartbeat } from "./kwok.ts";
import { initialisedNode, podCIDR } from "./objects.ts";
import { PLANS, withLive } from "./plan.ts";

describe("kwok's configuration", () => {
  const [options, stage] = kwokConfig({ leaseSeconds: 40, heartbeatSeconds: 300 })
    .split("\n---\n")
    .map((doc) => JSON.parse(doc) as Record<string, unknown>);

  test("one heartbeat stage, due one period after each Node's last heartbeat", () => {
    expect(options).toMatchObject({ kind: "KwokConfiguration" });
    expect(stage).toMatchObject({
      kind: "Stage",
      spec: { resourceRef: { kind: "Node" }, delay: { durationMilliseconds: 300_000 } },
    });
    expect(JSON.stringify(stage)).toContain("fromdate + 300 | todate");
  });

  test("each heartbeat up to a second later than due, so Nodes due in one second do not beat together", () => {
    const delay = (stage as { spec: { delay: Record<string, unknown> } }).spec.delay;
    expect(delay.jitterDurationMilliseconds).toBe(301_000);
    expect(JSON.stringify(delay.jitterDurationFrom)).toContain("fromdate + 301 | todate");
  });

  test("the heartbeat writes only kubelet's own conditions, never NetworkUnavailable", () => {
    const template = (stage as { spec: { next: { statusTemplate: string } } }).spec.next.statusTemplate;
    const types = [...template.matchAll(/type: (\w+)/g)].map((m) => m[1]);
    expect(types).toEqual(["MemoryPressure", "DiskPressure", "PIDPressure", "Ready"]);
    expect(template).not.toContain("NetworkUnavailable");
    expect(template).not.toContain("taints");
  });

  test("the heartbeat posts the conditions a bench Node is created with, so it changes only their times", () => {
    const template = (stage as { spec: { next: { statusTemplate: string } } }).spec.next.statusTemplate;
    const posted = [...template.matchAll(/type: (\w+)\n {2}status: "(\w+)"\n {2}reason: (\w+)\n {2}message: (.+)/g)];
    const created = (initialisedNode(7).status?.conditions ?? []).map((c) => [c.type, c.status, c.reason, c.message]);
    expect(posted.map((m) => m.slice(1)) as unknown[]).toEqual(created);
  });
});

describe("heartbeat times", () => {
  const now = Date.parse("2026-11-24T12:00:00Z");

  test("spread evenly over one period across the cluster", () => {
    const times = [0, 1, 2, 3].map((i) => lastHeartbeat(i, 4, 300, now));
    expect(times).toEqual([
      "2026-11-24T12:00:00Z",
      "2026-11-24T11:58:45Z",
      "2026-11-24T11:57:30Z",
      "2026-11-24T11:56:15Z",
    ]);
  });

  test("a single Node has just sent its heartbeat", () => {
    expect(lastHeartbeat(0, 1, 300, now)).toBe("2026-11-24T12:00:00Z");
  });
});

describe("pod CIDRs of the route scenarios", () => {
  test.each([
    [1, "10.128.0.0/26"],
    [4, "10.128.0.192/26"],
    [5, "10.128.1.0/26"],
    [1025, "10.129.0.0/26"],
    [100_000, "10.225.167.192/26"],
  ])("node %i → %s", (i, cidr) => {
    expect(podCIDR(i)).toBe(cidr);
  });
});

describe("plans", () => {
  test("--lease-seconds and --heartbeat-seconds replace every live case's, and leave static ones alone", () => {
    const plan = withLive(PLANS.big, { leaseSeconds: 160 });
    const live = plan.steady.filter((c) => c.live);
    expect(live.length).toBeGreaterThan(0);
    for (const c of live) expect(c.live?.leaseSeconds).toBe(160);
    expect(plan.steady.map((c) => c.live?.heartbeatSeconds)).toEqual(
      PLANS.big.steady.map((c) => c.live?.heartbeatSeconds),
    );
  });

  test("the big plan reaches 100,000 live nodes with a 1,000-node burst, and an empty-cluster burst to compare", () => {
    const sizes = PLANS.big.steady.map((c) => [c.nodes, c.burst ?? 0]);
    expect(sizes).toContainEqual([100_000, 1000]);
    expect(sizes).toContainEqual([0, 1000]);
  });
});
