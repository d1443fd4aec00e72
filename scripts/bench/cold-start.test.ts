import { describe, expect, test } from "bun:test";
import { coldStartLabel, coldStartTable } from "./cold-start-report.ts";
import { PLANS, coldStartCases, withThreads } from "./plan.ts";
import { readmeTables, resultsMarkdown } from "./report.ts";
import type { BenchResults } from "./results.ts";
import { NO_USAGE } from "./fixtures.ts";
import type { Usage } from "./run.ts";
import {
  advance,
  coldStartDone,
  coldStartName,
  missing,
  timesOf,
  type ColdStartCase,
  type ColdStartResult,
} from "./scenarios/cold-start.ts";
import { SCENARIOS, emptyResults, managersOf } from "./suite.ts";

const C: ColdStartCase = { nodes: 300, services: 30, latencyMs: 50, threads: 0 };

describe("the plans", () => {
  test.each([
    ["quick", 300, 30, [0, 2]],
    ["full", 2000, 200, [0, 1, 2, 4]],
    ["big", 20000, 2000, [0, 1, 2, 4, 8]],
  ] as const)("%s: %d nodes, %d services, threads %p", (plan, nodes, services, threads) => {
    const cases = PLANS[plan].coldStart;
    expect(cases.map((c) => c.threads)).toEqual([...threads]);
    for (const c of cases) expect(c).toMatchObject({ nodes, services, latencyMs: 50 });
  });

  test("the single-thread case comes first and only once", () => {
    expect(coldStartCases({ nodes: 10, services: 1 }, [0, 4]).map((c) => c.threads)).toEqual([0, 4]);
    expect(coldStartCases({ nodes: 10, services: 1 }, []).map((c) => c.threads)).toEqual([0]);
  });

  test("--threads replaces the thread counts of the threads scenario and of the cold start, at the plan's sizes", () => {
    const plan = withThreads(PLANS.big, [4, 0, 8]);
    expect(plan.threads.threads).toEqual([4, 0, 8]);
    expect(plan.threads.case).toEqual(PLANS.big.threads.case);
    expect(plan.coldStart.map((c) => c.threads)).toEqual([0, 4, 8]);
    for (const c of plan.coldStart) expect(c).toMatchObject({ nodes: 20000, services: 2000 });
    expect(withThreads(PLANS.big, undefined)).toBe(PLANS.big);
  });

  test("a scenario of its own for --only, and both managers only in the single-thread case", () => {
    expect(SCENARIOS).toContain("coldStart");
    expect(managersOf(C, ["go", "ours"])).toEqual(["go", "ours"]);
    expect(managersOf({ ...C, threads: 2 }, ["go", "ours"])).toEqual(["ours"]);
    expect(managersOf({ nodes: 5, limits: "tuned", latencyMs: 0 }, ["ours", "go"])).toEqual(["ours", "go"]);
  });

  test("run names tell the size, the manager and the threads", () => {
    expect(coldStartName(C, "go")).toBe("cold-start-300-30-50ms-go");
    expect(coldStartName({ ...C, threads: 4 }, "ours")).toBe("cold-start-300-30-50ms-ours-t4");
  });
});

describe("the completion predicate", () => {
  const none = { initialised: 0, ingress: 0, routes: 0 };

  test("each part is timed the first time it is complete, and later readings do not move it", () => {
    let m = advance(C, {}, { ...none, routes: 300 }, 0.8);
    expect(m).toEqual({ nodes: undefined, services: undefined, routes: 0.8 });
    expect(coldStartDone(m)).toBe(false);
    m = advance(C, m, { initialised: 299, ingress: 30, routes: 300 }, 5.4);
    expect(m).toEqual({ nodes: undefined, services: 5.4, routes: 0.8 });
    expect(coldStartDone(m)).toBe(false);
    m = advance(C, m, { initialised: 300, ingress: 30, routes: 301 }, 6.2);
    expect(m).toEqual({ nodes: 6.2, services: 5.4, routes: 0.8 });
    expect(coldStartDone(m)).toBe(true);
    expect(timesOf(m)).toEqual({ seconds: 6.2, nodesSeconds: 6.2, servicesSeconds: 5.4, routesSeconds: 0.8 });
  });

  test("routes are counted against the Nodes, not the Services", () => {
    expect(advance(C, {}, { initialised: 0, ingress: 0, routes: 30 }, 1).routes).toBeUndefined();
  });

  test("nothing is done on an empty reading; a timeout names what is missing", () => {
    expect(coldStartDone(advance(C, {}, none, 1))).toBe(false);
    expect(missing(C, { initialised: 300, ingress: 12, routes: 7 })).toBe(
      "12 of 30 services with ingress, 7 of 300 routes",
    );
    expect(missing(C, { initialised: 300, ingress: 30, routes: 300 })).toBe("");
  });
});

const USAGE: Usage = NO_USAGE;

function run(manager: "go" | "ours", threads: number, parts: [number, number, number]): ColdStartResult {
  const [nodesSeconds, servicesSeconds, routesSeconds] = parts;
  return {
    ...USAGE,
    manager,
    threads,
    seconds: Math.max(...parts),
    nodesSeconds,
    servicesSeconds,
    routesSeconds,
    routesInCloud: 300,
    cpuSeconds: 3,
    peakRssMiB: 118,
    requests: { total: 2181, byVerb: {}, errors: {} },
  };
}

function measured(): BenchResults {
  const r = emptyResults(
    PLANS.quick,
    { date: "2026-11-25T00:00:00.000Z", nproc: 2 } as BenchResults["machine"],
    {
      tuned: { qps: 500, burst: 1000, nodeSyncs: 10, serviceSyncs: 10 },
      goCloud: "shared",
    } as Parameters<typeof emptyResults>[2],
  );
  r.coldStart = [
    { case: C, order: ["ours", "go"], go: run("go", 0, [10, 3, 1]), ours: run("ours", 0, [5, 4, 1]) },
    { case: { ...C, threads: 2 }, order: ["go", "ours"], ours: run("ours", 2, [8, 3, 1]) },
  ];
  return r;
}

describe("the cold-start table", () => {
  test("labels say single-thread or our thread count", () => {
    expect(coldStartLabel({ ...C, nodes: 20000, services: 2000 })).toBe(
      "20,000 nodes, 2,000 services, routes, 50 ms, single-thread",
    );
    expect(coldStartLabel({ ...C, threads: 1 })).toBe("300 nodes, 30 services, routes, 50 ms, 1 thread (ours)");
  });

  test("one row per case: whole and parts for both, ours / Go, ours against our single-thread run", () => {
    const lines = coldStartTable(measured()).split("\n");
    expect(lines).toHaveLength(4);
    expect(lines[2]).toBe(
      "| 300 nodes, 30 services, routes, 50 ms, single-thread | 10.0 · 5.0 | **0.50** | 1.00 | 10.0 · 5.0 | " +
        "3.0 · 4.0 | 1.0 · 1.0 | 3.0 · 3.0 | 118 · 118 | 2181 · 2181 |",
    );
    expect(lines[3]).toBe(
      "| 300 nodes, 30 services, routes, 50 ms, 2 threads (ours) | – · 8.0 | – | 1.60 | – · 8.0 | – · 3.0 | " +
        "– · 1.0 | – · 3.0 | – · 118 | – · 2181 |",
    );
  });

  test("in results.md and the README block when measured; left out of results from before it existed", () => {
    const r = measured();
    const title = "## Mixed cold start: Nodes, load balancers and routes at once";
    expect(resultsMarkdown(r, { nodeInit: [] })).toContain(title);
    expect(readmeTables(r)).toContain("| 300 nodes, 30 services, routes, 50 ms, 2 threads (ours) |");
    const older = { ...r, coldStart: undefined };
    expect(resultsMarkdown(older, { nodeInit: [] })).not.toContain(title);
    expect(coldStartTable(older).split("\n")).toHaveLength(2);
  });

  test("a failed run is listed with its manager", () => {
    const r = measured();
    r.coldStart?.push({
      case: { ...C, threads: 4 },
      order: ["ours"],
      errors: { ours: "after 210 s: 7 of 300 routes" },
    });
    expect(resultsMarkdown(r, { nodeInit: [] })).toContain("- ours: after 210 s: 7 of 300 routes");
  });
});
