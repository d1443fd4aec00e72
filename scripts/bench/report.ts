/**
 * `bench/results.md` and the README's table from the results: ratios are ours / Go (below 1: ours is
 * faster or cheaper), and each target of the benchmark issue is checked against the 5,000-node figures.
 */
import type { BenchResults, Pair } from "./results.ts";
import type { LbResult } from "./scenarios/load-balancers.ts";
import type { NodeInitCase, NodeInitResult } from "./scenarios/node-init.ts";

const f = (n: number | undefined, digits = 1): string => (n === undefined || Number.isNaN(n) ? "–" : n.toFixed(digits));
const ratio = (ours: number | undefined, go: number | undefined): string => (ours === undefined || !go ? "–" : `**${(ours / go).toFixed(2)}**`);
const row = (cells: readonly string[]): string => `| ${cells.join(" | ")} |`;
const table = (head: readonly string[], rows: readonly (readonly string[])[]): string =>
  [row(head), row(head.map(() => "---")), ...rows.map(row)].join("\n");

export function caseLabel(c: NodeInitCase): string {
  return `${c.nodes.toLocaleString("en")} nodes, ${c.limits}, ${c.latencyMs} ms`;
}

function failed(p: { errors?: Partial<Record<string, string>> }): string {
  return Object.entries(p.errors ?? {}).map(([k, v]) => `${k}: ${v ?? ""}`).join("; ");
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
      return [caseLabel(p.case), both(p, seconds), ratioOf(p, seconds), both(p, (x) => x.nodesPerSecond), f(ceiling, 0), f(share, 2)];
    }),
  );
}

export function nodeInitCostTable(r: BenchResults): string {
  return table(
    ["case", "API requests / node (Go · ours)", "cloud calls / node (Go · ours)", "CPU s (Go · ours)", "peak RSS MiB (Go · ours)", "RSS ours / Go"],
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
  return Object.entries(result.requests.byVerb).filter(([, n]) => n >= nodes / 10).map(([k, n]) => `${k} ${n}`).join(", ");
}

const refused = (result: NodeInitResult | undefined): string => JSON.stringify(result?.requests.errors ?? {});

export function requestsTable(r: BenchResults): string {
  return table(
    ["case", "Go requests by verb", "our requests by verb", "refused (Go · ours)"],
    r.nodeInit.map((p) => [caseLabel(p.case), verbs(p.go, p.case.nodes), verbs(p.ours, p.case.nodes), `${refused(p.go)} · ${refused(p.ours)}`]),
  );
}

export function lbTable(r: BenchResults): string {
  return table(
    ["case", "all ingress s (Go · ours)", "ours / Go", "node-set update s (Go · ours)", "ours / Go", "requests per LB (Go · ours)", "peak RSS MiB (Go · ours)"],
    r.loadBalancers.map((p) => {
      const update = (x: LbResult): number => x.updateSeconds;
      return [
        `${p.case.services.toLocaleString("en")} services, ${p.case.nodes} nodes, ${p.case.limits}, ${p.case.latencyMs} ms`,
        both(p, seconds), ratioOf(p, seconds), both(p, update), ratioOf(p, update),
        both(p, (x) => x.ensure.requests.total / p.case.services, 2), both(p, (x) => x.update.peakRssMiB, 0),
      ];
    }),
  );
}

export function steadyTable(r: BenchResults): string {
  return table(
    ["case", "CPU s / minute (Go · ours)", "RSS MiB (Go · ours)", "RSS ours / Go", "requests in window (Go · ours)", "cloud calls in window (Go · ours)", "start-up to all ingress s (Go · ours)"],
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
    r.threads.runs.map((x) => [String(x.threads), f(x.seconds), f(x.nodesPerSecond), f(single && x.seconds / single.seconds, 2), f(x.cpuSeconds), f(x.peakRssMiB, 0)]),
  );
}

export function ceilingTable(r: BenchResults): string {
  return table(
    ["nodes", "concurrency", "seconds", "nodes/s", "requests/s"],
    r.ceiling.map((c) => [c.case.nodes.toLocaleString("en"), String(c.case.concurrency), f(c.result?.seconds), f(c.result?.nodesPerSecond, 0), f(c.result?.requestsPerSecond, 0)]),
  );
}

interface Target {
  readonly goal: string;
  readonly met: boolean | undefined;
  readonly figure: string;
}

function initAt(r: BenchResults, nodes: number, limits: string, latencyMs: number): Pair<NodeInitCase, NodeInitResult> | undefined {
  return r.nodeInit.find((p) => p.case.nodes === nodes && p.case.limits === limits && p.case.latencyMs === latencyMs);
}

export function targets(r: BenchResults): Target[] {
  const nodes = Math.max(...r.nodeInit.filter((p) => p.case.limits === "defaults").map((p) => p.case.nodes));
  const defaults = initAt(r, nodes, "defaults", 50);
  const tuned = r.nodeInit.filter((p) => p.case.nodes === nodes && p.case.limits === "tuned");
  const ourRuns = r.nodeInit.flatMap((p) => (p.ours ? [p.ours] : []));
  const maxCalls = Math.max(...ourRuns.map((x) => x.cloudCallsPerNode));
  const rss = r.nodeInit.filter((p) => p.case.nodes === nodes && p.go && p.ours);
  const worstRss = Math.max(...rss.map((p) => (p.ours?.peakRssMiB ?? 0) / (p.go?.peakRssMiB ?? 1)));
  const lbTuned = r.loadBalancers.filter((p) => p.case.limits === "tuned" && p.go && p.ours);
  const worstLb = Math.max(...lbTuned.flatMap((p) => [(p.ours?.seconds ?? 0) / (p.go?.seconds ?? 1), (p.ours?.updateSeconds ?? 0) / (p.go?.updateSeconds ?? 1)]));
  const worstTuned = Math.max(...tuned.filter((p) => p.go && p.ours).map((p) => (p.ours?.seconds ?? 0) / (p.go?.seconds ?? 1)));
  const defaultsRatio = defaults?.ours && defaults.go ? defaults.ours.seconds / defaults.go.seconds : undefined;
  return [
    { goal: `${nodes.toLocaleString("en")} nodes, upstream defaults: at most half the Go reference's time`, met: defaultsRatio === undefined ? undefined : defaultsRatio <= 0.5, figure: `ours / Go = ${f(defaultsRatio, 2)}` },
    { goal: `${nodes.toLocaleString("en")} nodes, equal tuned limits: no slower`, met: tuned.length ? worstTuned <= 1 : undefined, figure: `worst ours / Go = ${f(worstTuned, 2)}` },
    { goal: "at most 0.1 cloud calls per initialised node", met: ourRuns.length ? maxCalls <= 0.1 : undefined, figure: `worst = ${f(maxCalls, 3)}` },
    { goal: `peak RSS no higher than the Go reference (${nodes.toLocaleString("en")}-node runs)`, met: rss.length ? worstRss <= 1 : undefined, figure: `worst ours / Go = ${f(worstRss, 2)}` },
    { goal: "load balancers no slower at equal (tuned) concurrency", met: lbTuned.length ? worstLb <= 1 : undefined, figure: `worst ours / Go = ${f(worstLb, 2)}` },
  ];
}

export function targetsTable(r: BenchResults): string {
  return table(["target", "met", "figure"], targets(r).map((t) => [t.goal, t.met === undefined ? "not measured" : t.met ? "yes" : "**no**", t.figure]));
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
  return [`Latest full run: ${r.machine.date.slice(0, 10)}, ${r.machine.nproc} CPUs (${r.machine.cpu}) shared with the API server and etcd. Ratios are ours / Go; below 1 is better for us.`, "", targetsTable(r), "", nodeInitTable(r), "", lbTable(r), "", steadyTable(r), "", threadsTable(r)].join("\n");
}
