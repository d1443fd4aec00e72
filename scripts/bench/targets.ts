/**
 * The benchmark issues' targets, each checked against the results: ratios are ours / Go (below 1: ours is
 * faster or cheaper). Node initialisation is judged at 5,000 Nodes (a smaller plan: its largest size),
 * steady state at 20,000 live Nodes and at the largest size measured, the burst on the largest live
 * cluster against the same burst on an empty one.
 */
import { f, seconds, table } from "./markdown.ts";
import type { BenchResults } from "./results.ts";
import type { SteadyCase, SteadyResult } from "./scenarios/steady.ts";

export interface Target {
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
  const rows = [...targets(r), ...steadyTargets(r)].map((t) => [t.goal, met(t), t.figure]);
  return table(["target", "met", "figure"], rows);
}

const met = (t: Target): string => (t.met === undefined ? "not measured" : t.met ? "yes" : "**no**");

type SteadyPair = BenchResults["steady"][number];

/** Steady-state targets at one size: CPU and RSS at most half the Go reference's. */
function steadyAt(pairs: readonly SteadyPair[], nodes: number): Target[] {
  const at = pairs.filter((p) => p.case.nodes === nodes && p.case.live);
  const n = nodes.toLocaleString("en");
  return [
    verdict(
      `steady state, ${n} live nodes: CPU at most half the Go reference's`,
      worst(at, (x) => x.cpuSecondsPerMinute),
      0.5,
      "ours / Go",
    ),
    verdict(
      `steady state, ${n} live nodes: RSS at most half the Go reference's`,
      worst(at, (x) => x.rssMiB),
      0.5,
      "ours / Go",
    ),
  ];
}

/**
 * Whether `empty` is the burst of `live` into an empty cluster: the same burst and the same controllers
 * (a burst with routes also has a route created and a condition written per Node).
 */
export function isEmptyTwin(empty: SteadyCase, live: SteadyCase): boolean {
  return empty.nodes === 0 && empty.burst === live.burst && Boolean(empty.routes) === Boolean(live.routes);
}

/** The burst on the largest live cluster within 10 % of the same burst on an empty one (ours). */
function burstTarget(pairs: readonly SteadyPair[]): Target[] {
  const bursts = pairs.filter((p) => p.case.burst && p.case.live);
  const largest = bursts.reduce<SteadyPair | undefined>(
    (a, p) => (!a || p.case.nodes > a.case.nodes ? p : a),
    undefined,
  );
  const empty = largest && bursts.find((p) => isEmptyTwin(p.case, largest.case));
  if (!largest || !empty || largest === empty) return [];
  const time = (x: SteadyResult | undefined): number | undefined => x?.burst?.seconds;
  const a = time(largest.ours);
  const b = time(empty.ours);
  const n = largest.case.nodes.toLocaleString("en");
  const goal = `${(largest.case.burst ?? 0).toLocaleString("en")}-node burst on ${n} live nodes: within 10 % of an empty cluster`;
  return [verdict(goal, a === undefined || !b ? undefined : a / b, 1.1, "ours, live / empty")];
}

export function steadyTargets(r: BenchResults): Target[] {
  const sizes = r.steady.filter((p) => p.case.live && p.case.windowSeconds > 0).map((p) => p.case.nodes);
  if (sizes.length === 0) return [];
  const largest = Math.max(...sizes);
  const at = [...new Set([20000, largest])].filter((x) => sizes.includes(x));
  return [...at.flatMap((x) => steadyAt(r.steady, x)), ...burstTarget(r.steady)];
}
