/**
 * `results.md` and the README's tables from the results: ratios are ours / Go (below 1: ours is faster or
 * cheaper); the targets are checked in targets.ts.
 */
import type { ThreadCpu } from "./proc-stats.ts";
import type { BenchResults } from "./results.ts";
import { coldStartTable } from "./cold-start-report.ts";
import type { LbResult } from "./scenarios/load-balancers.ts";
import type { SteadyCase, SteadyResult } from "./scenarios/steady.ts";
import { isEmptyTwin, targetsTable } from "./targets.ts";
import { both, f, ratioOf, seconds, table } from "./markdown.ts";
import type { NodeInitCase, NodeInitResult } from "./scenarios/node-init.ts";

export function caseLabel(c: NodeInitCase): string {
  return `${c.nodes.toLocaleString("en")} nodes, ${c.limits}, ${c.latencyMs} ms`;
}

function failed(p: { errors?: Partial<Record<string, string>> }): string {
  return Object.entries(p.errors ?? {})
    .map(([k, v]) => `${k}: ${v ?? ""}`)
    .join("; ");
}

export function nodeInitTable(r: BenchResults): string {
  return table(
    ["case", "seconds (Go · ours)", "ours / Go", "nodes/s (Go · ours)", "ceiling nodes/s", "ours / ceiling"],
    r.nodeInit.map((p) => {
      const ceiling = r.ceiling.find((x) => x.case.nodes === p.case.nodes)?.result?.nodesPerSecond;
      const share = p.ours && ceiling ? p.ours.nodesPerSecond / ceiling : undefined;
      return [
        caseLabel(p.case),
        both(p, seconds),
        ratioOf(p, seconds),
        both(p, (x) => x.nodesPerSecond),
        f(ceiling, 0),
        f(share, 2),
      ];
    }),
  );
}

export function nodeInitCostTable(r: BenchResults): string {
  return table(
    [
      "case",
      "API requests / node (Go · ours)",
      "cloud calls / node (Go · ours)",
      "CPU s (Go · ours)",
      "peak RSS MiB (Go · ours)",
      "RSS ours / Go",
    ],
    r.nodeInit.map((p) => [
      caseLabel(p.case),
      both(p, (x) => x.requestsPerNode, 2),
      both(p, (x) => x.cloudCallsPerNode, 3),
      both(p, (x) => x.cpuSeconds),
      both(p, (x) => x.peakRssMiB, 0),
      ratioOf(p, (x) => x.peakRssMiB),
    ]),
  );
}

function verbs(result: NodeInitResult | undefined, nodes: number): string {
  if (!result) return "–";
  return Object.entries(result.requests.byVerb)
    .filter(([, n]) => n >= nodes / 10)
    .map(([k, n]) => `${k} ${n}`)
    .join(", ");
}

const refused = (result: NodeInitResult | undefined): string => JSON.stringify(result?.requests.errors ?? {});

export function requestsTable(r: BenchResults): string {
  return table(
    ["case", "Go requests by verb", "our requests by verb", "refused (Go · ours)"],
    r.nodeInit.map((p) => [
      caseLabel(p.case),
      verbs(p.go, p.case.nodes),
      verbs(p.ours, p.case.nodes),
      `${refused(p.go)} · ${refused(p.ours)}`,
    ]),
  );
}

export function lbTable(r: BenchResults): string {
  return table(
    [
      "case",
      "all ingress s (Go · ours)",
      "ours / Go",
      "node-set update s (Go · ours)",
      "ours / Go",
      "requests per LB (Go · ours)",
      "peak RSS MiB (Go · ours)",
    ],
    r.loadBalancers.map((p) => {
      const update = (x: LbResult): number => x.updateSeconds;
      return [
        `${p.case.services.toLocaleString("en")} services, ${p.case.nodes} nodes, ${p.case.limits}, ${p.case.latencyMs} ms`,
        both(p, seconds),
        ratioOf(p, seconds),
        both(p, update),
        ratioOf(p, update),
        both(p, (x) => x.ensure.requests.total / p.case.services, 2),
        both(p, (x) => x.update.peakRssMiB, 0),
      ];
    }),
  );
}

/** "5,000 nodes, 1,000 services, live (Lease 40 s, heartbeat 300 s), routes, 50 ms, 300 s window". */
export function steadyLabel(c: SteadyCase): string {
  const live = c.live ? `, live (Lease ${c.live.leaseSeconds} s, heartbeat ${c.live.heartbeatSeconds} s)` : ", static";
  const n = (x: number): string => x.toLocaleString("en");
  return `${n(c.nodes)} nodes, ${n(c.services)} services${live}${c.routes ? ", routes" : ""}, ${c.latencyMs} ms, ${c.windowSeconds} s window`;
}

/** Per minute of the window (results from before these were stored: from the window's totals). */
const perMinute = (c: SteadyCase, stored: number | undefined, total: number): number =>
  stored ?? (c.windowSeconds > 0 ? (total * 60) / c.windowSeconds : 0);

export function steadyTable(r: BenchResults): string {
  const head = [
    "case",
    "CPU s / minute (Go · ours)",
    "CPU ours / Go",
    "RSS MiB (Go · ours)",
    "RSS ours / Go",
    "API requests / minute (Go · ours)",
    "cloud calls / minute (Go · ours)",
    "start-up s (Go · ours)",
  ];
  const rows = r.steady
    .filter((p) => p.case.windowSeconds > 0)
    .map((p) => {
      const requests = (x: SteadyResult): number => perMinute(p.case, x.requestsPerMinute, x.window.requests.total);
      const calls = (x: SteadyResult): number => perMinute(p.case, x.cloudCallsPerMinute, x.window.cloudCallsTotal);
      const cpu = (x: SteadyResult): number => x.cpuSecondsPerMinute;
      const rss = (x: SteadyResult): number => x.rssMiB;
      return [
        steadyLabel(p.case),
        both(p, cpu, 2),
        ratioOf(p, cpu),
        both(p, rss, 0),
        ratioOf(p, rss),
        both(p, requests, 0),
        both(p, calls, 0),
        both(p, (x) => x.startupSeconds),
      ];
    });
  return table(head, rows);
}

/** The burst of each live case, and how it compares with the same burst on an empty cluster. */
export function burstTable(r: BenchResults): string {
  const withBurst = r.steady.filter((p) => p.case.burst);
  const rows = withBurst.map((p) => {
    const ref = withBurst.find((e) => isEmptyTwin(e.case, p.case));
    const secs = (x: SteadyResult): number => x.burst?.seconds ?? Number.NaN;
    const vsEmpty = (m: "go" | "ours"): number | undefined => ratioNumber(p[m] && secs(p[m]), ref?.[m] && secs(ref[m]));
    return [
      `${(p.case.burst ?? 0).toLocaleString("en")} new nodes on ${p.case.nodes.toLocaleString("en")} live nodes`,
      both(p, secs),
      ratioOf(p, secs),
      both(p, (x) => x.burst?.nodesPerSecond ?? Number.NaN, 0),
      `${f(vsEmpty("go"), 2)} · ${f(vsEmpty("ours"), 2)}`,
    ];
  });
  const head = [
    "burst",
    "seconds to initialised (Go · ours)",
    "ours / Go",
    "nodes/s (Go · ours)",
    "vs empty cluster (Go · ours)",
  ];
  return table(head, rows);
}

function ratioNumber(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined || !b ? undefined : a / b;
}

export function steadyMinutesTable(r: BenchResults): string {
  const rows = r.steady
    .filter((p) => p.case.windowSeconds > 0)
    .flatMap((p) => {
      const count = Math.max(p.go?.minutes.length ?? 0, p.ours?.minutes.length ?? 0);
      return Array.from({ length: count }, (_, i) => {
        const minute = { go: p.go?.minutes[i], ours: p.ours?.minutes[i] };
        const cpu = both(minute, (m) => m.cpuSecondsPerMinute, 2);
        return [`${p.case.nodes.toLocaleString("en")} nodes`, String(i + 1), cpu, both(minute, (m) => m.rssMiB, 0)];
      });
    });
  return table(["case", "minute", "CPU s (Go · ours)", "RSS MiB (Go · ours)"], rows);
}

export function threadsTable(r: BenchResults): string {
  const single = r.threads.runs.find((x) => x.threads === 0);
  return table(
    [
      "--controller-threads",
      "seconds",
      "nodes/s",
      "vs single-thread",
      "CPU s",
      "CPU s by thread: main · controller threads · JIT · GC · other",
      "peak RSS MiB",
      "main-thread lag p99 ms",
      // Threads that start late show here first: on 16 cores 8 threads initialised their first Node
      // after 12.8 s where one thread took 2.6 s.
      "first Node initialised s",
    ],
    r.threads.runs.map((x) => [
      String(x.threads),
      f(x.seconds),
      f(x.nodesPerSecond),
      f(single && x.seconds / single.seconds, 2),
      f(x.cpuSeconds),
      threadCpuCell(x.threadCpu),
      f(x.peakRssMiB, 0),
      x.lagP99Seconds === undefined ? "–" : `≤ ${f(x.lagP99Seconds * 1000, 1)}`,
      f(x.firstInitialisedSeconds),
    ]),
  );
}

/**
 * Where the CPU went, as `main · controller threads · JIT · GC · other` ("–" from a run without it),
 * the controller threads' figure followed by each thread's, thread 0 first, where there are two or more.
 */
export function threadCpuCell(cpu: ThreadCpu | undefined): string {
  if (!cpu) return "–";
  const each = cpu.perController ?? [];
  const controllers = f(cpu.controllers, 2) + (each.length > 1 ? ` (${each.map((x) => f(x, 2)).join(" + ")})` : "");
  return [f(cpu.main, 2), controllers, ...[cpu.jit, cpu.gc, cpu.other].map((x) => f(x, 2))].join(" · ");
}

export function ceilingTable(r: BenchResults): string {
  return table(
    ["nodes", "concurrency", "seconds", "nodes/s", "requests/s"],
    r.ceiling.map((c) => [
      c.case.nodes.toLocaleString("en"),
      String(c.case.concurrency),
      f(c.result?.seconds),
      f(c.result?.nodesPerSecond, 0),
      f(c.result?.requestsPerSecond, 0),
    ]),
  );
}

function machineLines(r: BenchResults): string {
  const m = r.machine;
  const kwok = m.kwok ? `, kwok ${m.kwok}` : "";
  return [
    `- Date: ${m.date}; plan: ${r.plan}`,
    `- Machine: ${m.nproc} CPUs (${m.cpu}), ${m.memoryGiB} GiB memory, ${m.os}, kernel ${m.kernel}; the API server,`,
    "  etcd, the fake cloud and kwok share these CPUs",
    `- Versions: this manager ${m.ccm}, Bun ${m.bun}; Go reference k8s.io/cloud-provider ${m.cloudProviderModule}`,
    `  built with ${m.go}; kube-apiserver ${m.kubernetes}, etcd ${m.etcd}${kwok}`,
  ].join("\n");
}

export interface Plots {
  /** Nodes initialised over time, per plotted case. */
  readonly nodeInit: readonly string[];
  /** CPU and RSS against cluster size (steady state), when measured. */
  readonly scaling?: string;
}

/** Tables that hold at least one row (a header and its rule are two lines). */
const filled = (...tables: string[]): string[] => tables.filter((t) => t.split("\n").length > 2);

/** A section with its tables and images, or nothing when it has no rows. */
function section(title: string, tables: string[], images: readonly string[] = []): string[] {
  const parts = filled(...tables);
  if (parts.length === 0) return [];
  return [`## ${title}`, "", ...parts.flatMap((t) => [t, ""]), ...images.flatMap((i) => [i, ""])];
}

/** The whole `results.md`. */
export function resultsMarkdown(r: BenchResults, plots: Plots): string {
  const errors = [...r.nodeInit, ...r.loadBalancers, ...r.steady, ...(r.coldStart ?? [])]
    .map((p) => failed(p))
    .filter(Boolean);
  const scaling = plots.scaling ? [`![CPU and RSS against cluster size](${plots.scaling})`] : [];
  return [
    "# Benchmark results: this manager against the Go reference (k8s.io/cloud-provider)",
    "",
    machineLines(r),
    "",
    "## How it was measured",
    "",
    ...r.settings.notes.map((n) => `- ${n}`),
    "",
    ...section("Targets", [targetsTable(r)]),
    ...section(
      "Node initialisation",
      [nodeInitTable(r), nodeInitCostTable(r), requestsTable(r)],
      plots.nodeInit.map((p) => `![nodes initialised over time](${p})`),
    ),
    ...section("Load balancers", [lbTable(r)]),
    ...section("Steady state", [steadyTable(r), steadyMinutesTable(r)], scaling),
    ...section("Burst on a live cluster", [burstTable(r)]),
    ...section("Worker threads (this manager only)", [threadsTable(r)]),
    ...section("Mixed cold start: Nodes, load balancers and routes at once", [coldStartTable(r)]),
    ...section("Ceiling: the same writes from a minimal client", [ceilingTable(r)]),
    ...(errors.length ? ["## Failed runs", "", ...errors.map((e) => `- ${e}`), ""] : []),
  ].join("\n");
}

/** The README's "Benchmarks" tables (between the markers); `plotPath` relative to the README. */
export function readmeTables(r: BenchResults, plotPath?: string): string {
  const m = r.machine;
  const head = [
    `Latest \`${r.plan}\` run: ${m.date.slice(0, 10)}, ${m.nproc} CPUs (${m.cpu}), ${m.memoryGiB} GiB, shared with the`,
    "API server, etcd and the fake cloud. Ratios are ours / Go; below 1 is better for us.",
  ].join(" ");
  const tables = filled(
    targetsTable(r),
    nodeInitTable(r),
    lbTable(r),
    steadyTable(r),
    burstTable(r),
    threadsTable(r),
    coldStartTable(r),
  );
  const plot = plotPath ? ["", `![CPU and RSS against cluster size, steady state](${plotPath})`] : [];
  return [head, ...tables.flatMap((t) => ["", t]), ...plot].join("\n");
}
