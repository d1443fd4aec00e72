import { describe, expect, test } from "bun:test";
import { scalingChart } from "./publish.ts";
import { burstTable, readmeTables, resultsMarkdown, steadyTable, threadCpuCell, threadsTable } from "./report.ts";
import type { BenchResults } from "./results.ts";
import type { NodeInitResult } from "./scenarios/node-init.ts";
import type { SteadyCase, SteadyResult } from "./scenarios/steady.ts";
import { steadyTargets } from "./targets.ts";
import { NO_USAGE } from "./fixtures.ts";
import type { Usage } from "./run.ts";

const USAGE: Usage = NO_USAGE;

const KUBELET = { leaseSeconds: 40, heartbeatSeconds: 300 };

function steady(manager: "go" | "ours", cpu: number, rss: number, burstSeconds?: number): SteadyResult {
  const burst =
    burstSeconds === undefined
      ? undefined
      : { nodes: 1000, seconds: burstSeconds, nodesPerSecond: 1000 / burstSeconds };
  return {
    manager,
    startupSeconds: 10,
    startup: USAGE,
    minutes: [{ minute: 1, cpuSecondsPerMinute: cpu, rssMiB: rss }],
    window: { ...USAGE, requests: { total: 600, byVerb: {}, errors: {} } },
    cpuSecondsPerMinute: cpu,
    rssMiB: rss,
    requestsPerMinute: 120,
    cloudCallsPerMinute: 3,
    burst: burst && { ...burst, createSeconds: 1, cpuSeconds: 1, requests: 3000, timeline: [] },
  };
}

function pair(c: SteadyCase, go: SteadyResult, ours: SteadyResult): BenchResults["steady"][number] {
  return { case: c, order: ["ours", "go"], go, ours };
}

function results(steadyPairs: BenchResults["steady"]): BenchResults {
  return {
    plan: "big",
    machine: {
      date: "2026-11-24T00:00:00.000Z",
      nproc: 16,
      memoryGiB: 128,
      cpu: "test CPU",
      os: "Linux",
      kernel: "6",
      bun: "1.4.4",
      go: "go1.26",
      kubernetes: "v1.36.3",
      etcd: "v3.6.16",
      kwok: "v0.8.0",
      cloudProviderModule: "v0.36.3",
      ccm: "v0.1.0",
    },
    settings: {
      limits: {
        defaults: { qps: 20, burst: 30, nodeSyncs: 1, serviceSyncs: 1 },
        tuned: { qps: 500, burst: 1000, nodeSyncs: 10, serviceSyncs: 10 },
      },
      apiserverArgs: [],
      goCloud: "shared",
      notes: ["a note"],
    },
    nodeInit: [],
    threads: { case: { nodes: 1, limits: "tuned", latencyMs: 0 }, runs: [], errors: [] },
    loadBalancers: [],
    steady: steadyPairs,
    ceiling: [],
  };
}

const EMPTY: SteadyCase = { nodes: 0, services: 0, latencyMs: 50, windowSeconds: 0, live: KUBELET, burst: 1000 };
const AT_20K: SteadyCase = { nodes: 20000, services: 2000, latencyMs: 50, windowSeconds: 300, live: KUBELET };
const AT_100K: SteadyCase = { ...AT_20K, nodes: 100000, services: 5000, burst: 1000 };

const measured = results([
  pair(EMPTY, steady("go", 0, 0, 10), steady("ours", 0, 0, 8)),
  pair(AT_20K, steady("go", 4, 400, undefined), steady("ours", 1, 100, undefined)),
  pair(AT_100K, steady("go", 20, 2000, 12), steady("ours", 12, 600, 9.2)),
]);

describe("steady-state targets", () => {
  test("checked at 20,000 live nodes and at the largest size, and the burst against an empty cluster", () => {
    const got = steadyTargets(measured).map((t) => [t.goal, t.met, t.figure]);
    expect(got).toEqual([
      ["steady state, 20,000 live nodes: CPU at most half the Go reference's", true, "ours / Go = 0.250"],
      ["steady state, 20,000 live nodes: RSS at most half the Go reference's", true, "ours / Go = 0.250"],
      ["steady state, 100,000 live nodes: CPU at most half the Go reference's", false, "ours / Go = 0.600"],
      ["steady state, 100,000 live nodes: RSS at most half the Go reference's", true, "ours / Go = 0.300"],
      ["1,000-node burst on 100,000 live nodes: within 10 % of an empty cluster", false, "ours, live / empty = 1.15"],
    ]);
  });

  test("nothing to check without a live window", () => {
    expect(steadyTargets(results([pair(EMPTY, steady("go", 0, 0, 10), steady("ours", 0, 0, 8))]))).toEqual([]);
  });

  test("a manager's missing run leaves its target not measured", () => {
    const partial = results([{ case: AT_20K, order: ["ours", "go"], ours: steady("ours", 1, 100) }]);
    expect(steadyTargets(partial).map((t) => t.met)).toEqual([undefined, undefined]);
  });
});

describe("steady and burst tables", () => {
  test("one row per measured window, with ratios ours / Go", () => {
    const rows = steadyTable(measured).split("\n").slice(2);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toContain("20,000 nodes, 2,000 services, live (Lease 40 s, heartbeat 300 s), 50 ms, 300 s window");
    expect(rows[0]).toContain("| 4.00 · 1.00 | **0.25** | 400 · 100 | **0.25** |");
    expect(rows[1]).toContain("| 20.00 · 12.00 | **0.60** |");
  });

  test("each burst against the same burst on an empty cluster", () => {
    const rows = burstTable(measured).split("\n").slice(2);
    expect(rows).toEqual([
      "| 1,000 new nodes on 0 live nodes | 10.0 · 8.0 | **0.80** | 100 · 125 | 1.00 · 1.00 |",
      "| 1,000 new nodes on 100,000 live nodes | 12.0 · 9.2 | **0.77** | 83 · 109 | 1.20 · 1.15 |",
    ]);
  });

  test("a burst with routes is compared only with an empty cluster's burst with routes", () => {
    const routed = { ...AT_100K, routes: true };
    const unmatched = results([
      pair(EMPTY, steady("go", 0, 0, 10), steady("ours", 0, 0, 8)),
      pair(routed, steady("go", 20, 2000, 12), steady("ours", 12, 600, 9.2)),
    ]);
    expect(burstTable(unmatched).split("\n")[3]).toEndWith("| – · – |");
    expect(steadyTargets(unmatched).map((t) => t.goal)).not.toContain(
      "1,000-node burst on 100,000 live nodes: within 10 % of an empty cluster",
    );
    const twin = pair({ ...EMPTY, routes: true }, steady("go", 0, 0, 6), steady("ours", 0, 0, 4.6));
    const matched = results([...unmatched.steady, twin]);
    expect(burstTable(matched).split("\n")[3]).toEndWith("| 2.00 · 2.00 |");
  });
});

describe("results.md and the README block", () => {
  test("sections without rows are left out; the scaling plot is linked where drawn", () => {
    const md = resultsMarkdown(measured, { nodeInit: [], scaling: "steady-scaling.svg" });
    expect(md).toContain("## Steady state");
    expect(md).toContain("## Burst on a live cluster");
    expect(md).toContain("![CPU and RSS against cluster size](steady-scaling.svg)");
    expect(md).not.toContain("## Load balancers");
    expect(md).not.toContain("## Failed runs");
  });

  test("a failed run is listed with its manager", () => {
    const failed = results([{ case: AT_20K, order: ["go", "ours"], errors: { go: "etcd quota exceeded" } }]);
    expect(resultsMarkdown(failed, { nodeInit: [] })).toContain("- go: etcd quota exceeded");
  });

  test("the README block names the plan and the machine and links the plot", () => {
    const block = readmeTables(measured, "bench/big/steady-scaling.svg");
    expect(block.split("\n")[0]).toContain("Latest `big` run: 2026-11-24, 16 CPUs (test CPU), 128 GiB");
    expect(block).toContain("![CPU and RSS against cluster size, steady state](bench/big/steady-scaling.svg)");
  });
});

describe("the scaling plot", () => {
  test("one point per live size for each manager, none for the empty cluster", () => {
    const svg = scalingChart(measured) ?? "";
    expect(svg.startsWith("<svg")).toBe(true);
    expect(svg.match(/<polyline/g)).toHaveLength(4);
    expect(svg.match(/<circle/g)).toHaveLength(8);
    expect(svg).toContain("100,000");
  });

  test("no plot without a live window", () => {
    expect(scalingChart(results([]))).toBeUndefined();
  });
});

const CPU_BY_THREAD = { main: 3.9, controllers: 0, jit: 0.62, gc: 0.2, other: 0.1 };

describe("threads table", () => {
  test("each thread count with its CPU by thread and main-thread lag p99 (dashes where not measured)", () => {
    const run = (threads: number, seconds: number, lagP99Seconds?: number): NodeInitResult => ({
      ...USAGE,
      ...(lagP99Seconds === undefined ? {} : { threadCpu: CPU_BY_THREAD }),
      manager: "ours",
      threads,
      seconds,
      nodesPerSecond: 1000 / seconds,
      firstInitialisedSeconds: seconds / 4,
      requestsPerNode: 0,
      cloudCallsPerNode: 0,
      timeline: [],
      lagP99Seconds,
    });
    const r = { ...measured, threads: { ...measured.threads, runs: [run(0, 10, 0.025), run(4, 5)] } };
    const rows = threadsTable(r).split("\n").slice(2);
    expect(rows[0]).toContain("| 0 | 10.0 | 100.0 | 1.00 |");
    expect(rows[0]).toContain("| 3.90 · 0.00 · 0.62 · 0.20 · 0.10 |");
    expect(rows[1]).toContain(" | – | ");
    expect(rows[0]).toEndWith("| ≤ 25.0 | 2.5 |");
    expect(rows[1]).toContain("| 4 | 5.0 | 200.0 | 0.50 |");
    expect(rows[1]).toEndWith("| – | 1.3 |");
  });
});

describe("CPU by thread, as a cell", () => {
  const cpu = { main: 5, controllers: 9.5, jit: 1, gc: 2.25, other: 0.5 };
  test("each controller thread's share follows theirs, thread 0 first, where there are two or more", () => {
    expect(threadCpuCell({ ...cpu, perController: [4, 3, 2.5] })).toBe(
      "5.00 · 9.50 (4.00 + 3.00 + 2.50) · 1.00 · 2.25 · 0.50",
    );
    expect(threadCpuCell({ ...cpu, perController: [9.5] })).toBe("5.00 · 9.50 · 1.00 · 2.25 · 0.50");
  });
  test("results measured before the shares were recorded, and runs without any figure", () => {
    expect(threadCpuCell(cpu)).toBe("5.00 · 9.50 · 1.00 · 2.25 · 0.50");
    expect(threadCpuCell(undefined)).toBe("–");
  });
});
