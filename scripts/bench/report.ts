/**
 * `bench/results.md` and the README's table from the results: ratios are ours / Go (below 1: ours is
 * faster or cheaper), and each target of the benchmark issue is checked against the 5,000-node figures.
 */
import type { BenchResults } from "./results.ts";
import type { LbResult } from "./scenarios/load-balancers.ts";
import type { NodeInitCase, NodeInitResult } from "./scenarios/node-init.ts";

const f = (n: number | undefined, digits = 1): string => (n === undefined || Number.isNaN(n) ? "–" : n.toFixed(digits));
const ratio = (ours: number | undefined, go: number | undefined): string =>
  ours === undefined || !go ? "–" : `**${(ours / go).toFixed(2)}**`;
const row = (cells: readonly string[]): string => `| ${cells.join(" | ")} |`;
const table = (head: readonly string[], rows: readonly (readonly string[])[]): string =>
  [row(head), row(head.map(() => "---")), ...rows.map(row)].join("\n");

export function caseLabel(c: NodeInitCase): string {
  return `${c.nodes.toLocaleString("en")} nodes, ${c.limits}, ${c.latencyMs} ms`;
}

function failed(p: { errors?: Partial<Record<string, string>> }): string {
  return Object.entries(p.errors ?? {})
    .map(([k, v]) => `${k}: ${v ?? ""}`)
    .join("; ");
}

/** "Go · ours" for one figure of a pair. */
function both<R>(p: { go?: R; ours?: R }, figure: (r: R) => number, digits = 1): string {
  return `${f(p.go && figure(p.go), digits)} · ${f(p.ours && figure(p.ours), digits)}`;
}

function ratioOf<R>(p: { go?: R; ours?: R }, figure: (r: R) => number): string {
  return ratio(p.ours && figure(p.ours), p.go && figure(p.go));
}

const seconds = (r: { seconds: number }): number => r.seconds;

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

export function steadyTable(r: BenchResults): string {
  return table(
    [
      "case",
      "CPU s / minute (Go · ours)",
      "RSS MiB (Go · ours)",
      "RSS ours / Go",
      "requests in window (Go · ours)",
      "cloud calls in window (Go · ours)",
      "start-up to all ingress s (Go · ours)",
    ],
    r.steady.map((p) => [
      `${p.case.nodes.toLocaleString("en")} nodes, ${p.case.services.toLocaleString("en")} services, ${p.case.latencyMs} ms, ${p.case.windowSeconds} s window`,
      both(p, (x) => x.cpuSecondsPerMinute, 2),
      both(p, (x) => x.rssMiB, 0),
      ratioOf(p, (x) => x.rssMiB),
      both(p, (x) => x.window.requests.total, 0),
      both(p, (x) => x.window.cloudCallsTotal, 0),
      both(p, (x) => x.startupSeconds),
    ]),
  );
}

export function steadyMinutesTable(r: BenchResults): string {
  const rows = r.steady.flatMap((p) => {
    const count = Math.max(p.go?.minutes.length ?? 0, p.ours?.minutes.length ?? 0);
    return Array.from({ length: count }, (_, i) => {
      const minute = { go: p.go?.minutes[i], ours: p.ours?.minutes[i] };
      return [String(i + 1), both(minute, (m) => m.cpuSecondsPerMinute, 2), both(minute, (m) => m.rssMiB, 0)];
    });
  });
  return table(["minute", "CPU s (Go · ours)", "RSS MiB (Go · ours)"], rows);
}

export function threadsTable(r: BenchResults): string {
  const single = r.threads.runs.find((x) => x.threads === 0);
  return table(
    ["--controller-threads", "seconds", "nodes/s", "vs single-thread", "CPU s", "peak RSS MiB"],
    r.threads.runs.map((x) => [
      String(x.threads),
      f(x.seconds),
      f(x.nodesPerSecond),
      f(single && x.seconds / single.seconds, 2),
      f(x.cpuSeconds),
      f(x.peakRssMiB, 0),
    ]),
  );
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

interface Target {
  readonly goal: string;
  readonly met: boolean | undefined;
  readonly figure: string;
}

/** The worst ours / Go ratio over the pairs measured for both, undefined when none was. */
function worst<R>(pairs: readonly { go?: R; ours?: R }[], figure: (r: R) => number): number | undefined {
  const ratios = pairs.flatMap((p) => (p.go && p.ours ? [figure(p.ours) / figure(p.go)] : []));
  return ratios.length ? Math.max(...ratios) : undefined;
}

/** The targets are stated at 5,000 Nodes; a smaller plan checks its largest size instead. */
function targetNodes(r: BenchResults, limits: string): number {
  const sizes = r.nodeInit.filter((p) => p.case.limits === limits).map((p) => p.case.nodes);
  return sizes.includes(5000) ? 5000 : Math.max(0, ...sizes);
}

function verdict(goal: string, value: number | undefined, limit: number, label: string): Target {
  return {
    goal,
    met: value === undefined ? undefined : value <= limit,
    figure: `${label} = ${f(value, value !== undefined && value < 1 ? 3 : 2)}`,
  };
}

export function targets(r: BenchResults): Target[] {
  const atDefaults = targetNodes(r, "defaults");
  const atTuned = targetNodes(r, "tuned");
  const defaults = r.nodeInit.filter((p) => p.case.nodes === atDefaults && p.case.limits === "defaults");
  const tuned = r.nodeInit.filter((p) => p.case.nodes === atTuned && p.case.limits === "tuned");
  const ourRuns = r.nodeInit.flatMap((p) => (p.ours ? [p.ours] : []));
  const calls = ourRuns.length ? Math.max(...ourRuns.map((x) => x.cloudCallsPerNode)) : undefined;
  const rssRuns = r.nodeInit.filter((p) => p.case.nodes === atTuned || p.case.nodes === atDefaults);
  const lbTuned = r.loadBalancers.filter((p) => p.case.limits === "tuned");
  const lb = [worst(lbTuned, (x) => x.seconds), worst(lbTuned, (x) => x.updateSeconds)].filter((x) => x !== undefined);
  const n = (count: number): string => count.toLocaleString("en");
  return [
    verdict(
      `${n(atDefaults)} nodes, upstream defaults: at most half the Go reference's time`,
      worst(defaults, seconds),
      0.5,
      "ours / Go",
    ),
    verdict(`${n(atTuned)} nodes, equal tuned limits: no slower`, worst(tuned, seconds), 1, "worst ours / Go"),
    verdict("at most 0.1 cloud calls per initialised node", calls, 0.1, "worst"),
    verdict(
      `peak RSS no higher than the Go reference (${n(atTuned)}-node runs)`,
      worst(rssRuns, (x) => x.peakRssMiB),
      1,
      "worst ours / Go",
    ),
    verdict(
      "load balancers no slower at equal (tuned) concurrency",
      lb.length ? Math.max(...lb) : undefined,
      1,
      "worst ours / Go",
    ),
  ];
}

export function targetsTable(r: BenchResults): string {
  return table(
    ["target", "met", "figure"],
    targets(r).map((t) => [t.goal, t.met === undefined ? "not measured" : t.met ? "yes" : "**no**", t.figure]),
  );
}

function machineLines(r: BenchResults): string {
  const m = r.machine;
  return [
    `- Date: ${m.date}; plan: ${r.plan}`,
    `- Machine: ${m.nproc} CPUs (${m.cpu}), ${m.memoryGiB} GiB memory, ${m.os}, kernel ${m.kernel}; the API server and etcd share these CPUs`,
    `- Versions: this manager ${m.ccm}, Bun ${m.bun}; Go reference k8s.io/cloud-provider ${m.cloudProviderModule} built with ${m.go}; kube-apiserver ${m.kubernetes}, etcd ${m.etcd}`,
  ].join("\n");
}

/** The whole `results.md`. */
export function resultsMarkdown(r: BenchResults, plots: readonly string[]): string {
  const errors = [...r.nodeInit, ...r.loadBalancers, ...r.steady].map((p) => failed(p)).filter(Boolean);
  return [
    "# Benchmark results: this manager against the Go reference (k8s.io/cloud-provider)",
    "",
    machineLines(r),
    "",
    "## How it was measured",
    "",
    ...r.settings.notes.map((n) => `- ${n}`),
    "",
    "## Targets",
    "",
    targetsTable(r),
    "",
    "## Node initialisation",
    "",
    nodeInitTable(r),
    "",
    nodeInitCostTable(r),
    "",
    requestsTable(r),
    "",
    ...plots.map((p) => `![nodes initialised over time](${p})`),
    "",
    "## Load balancers",
    "",
    lbTable(r),
    "",
    "## Steady state",
    "",
    steadyTable(r),
    "",
    steadyMinutesTable(r),
    "",
    "## Worker threads (this manager only)",
    "",
    threadsTable(r),
    "",
    "## Ceiling: the same writes from a minimal client",
    "",
    ceilingTable(r),
    ...(errors.length ? ["", "## Failed runs", "", ...errors.map((e) => `- ${e}`)] : []),
    "",
  ].join("\n");
}

/** The README's "Benchmarks" tables (between the markers). */
export function readmeTables(r: BenchResults): string {
  return [
    `Latest full run: ${r.machine.date.slice(0, 10)}, ${r.machine.nproc} CPUs (${r.machine.cpu}) shared with the API server and etcd. Ratios are ours / Go; below 1 is better for us.`,
    "",
    targetsTable(r),
    "",
    nodeInitTable(r),
    "",
    lbTable(r),
    "",
    steadyTable(r),
    "",
    threadsTable(r),
  ].join("\n");
}
