/**
 * Scenario sizes. `full` is what the committed 2-core results come from (about an hour); `big` is for a
 * many-core machine (5,000 to 100,000 live Nodes; run in pieces with --only, --manager, --resume and
 * --max-runs where a time limit applies); `quick` runs every scenario small, as a smoke test of the whole
 * pipeline (a few minutes).
 */
import type { CeilingCase } from "./scenarios/ceiling.ts";
import type { ColdStartCase } from "./scenarios/cold-start.ts";
import type { LbCase } from "./scenarios/load-balancers.ts";
import type { NodeInitCase } from "./scenarios/node-init.ts";
import type { SteadyCase } from "./scenarios/steady.ts";
import type { LiveNodes } from "./kwok.ts";

export type PlanName = "quick" | "full" | "big";

export interface BenchPlan {
  readonly name: PlanName;
  readonly nodeInit: readonly NodeInitCase[];
  /** Our manager alone, single-thread (0) against `--controller-threads` values, on one case. */
  readonly threads: { readonly case: NodeInitCase; readonly threads: readonly number[] };
  readonly loadBalancers: readonly LbCase[];
  readonly steady: readonly SteadyCase[];
  readonly ceiling: readonly CeilingCase[];
  /** Mixed cold start: both managers single-thread, then ours at each other `--controller-threads` value. */
  readonly coldStart: readonly ColdStartCase[];
  /** The node-initialisation cases that get a plot. */
  readonly plots: readonly NodeInitCase[];
}

const CEILING_CONCURRENCY = 128;

/** One mixed cold start per `--controller-threads` value (0 first: the case both managers run). */
export function coldStartCases(size: { nodes: number; services: number }, threads: readonly number[]): ColdStartCase[] {
  return [0, ...threads.filter((t) => t > 0)].map((t) => ({ ...size, latencyMs: 50, threads: t }));
}
/** kubelet's defaults: a 40 s Lease (renewed every 10 s) and a status report every 5 minutes. */
const KUBELET: LiveNodes = { leaseSeconds: 40, heartbeatSeconds: 300 };

export const FULL_PLAN: BenchPlan = {
  name: "full",
  nodeInit: [
    { nodes: 1000, limits: "defaults", latencyMs: 50 },
    { nodes: 5000, limits: "defaults", latencyMs: 50 },
    { nodes: 1000, limits: "tuned", latencyMs: 0 },
    { nodes: 5000, limits: "tuned", latencyMs: 0 },
    { nodes: 1000, limits: "tuned", latencyMs: 50 },
    { nodes: 5000, limits: "tuned", latencyMs: 50 },
    { nodes: 10000, limits: "tuned", latencyMs: 50 },
  ],
  threads: { case: { nodes: 5000, limits: "tuned", latencyMs: 50 }, threads: [0, 1, 2, 4, 8] },
  loadBalancers: [
    { services: 500, nodes: 100, limits: "defaults", latencyMs: 50 },
    { services: 500, nodes: 100, limits: "tuned", latencyMs: 50 },
    { services: 2000, nodes: 100, limits: "tuned", latencyMs: 50 },
  ],
  steady: [
    { nodes: 0, services: 0, latencyMs: 50, windowSeconds: 0, live: KUBELET, burst: 1000 },
    { nodes: 5000, services: 1000, latencyMs: 50, windowSeconds: 300, live: KUBELET, burst: 1000 },
    {
      nodes: 20000,
      services: 1000,
      latencyMs: 50,
      windowSeconds: 300,
      live: { leaseSeconds: 160, heartbeatSeconds: 300 },
    },
  ],
  ceiling: [
    { nodes: 1000, concurrency: CEILING_CONCURRENCY },
    { nodes: 5000, concurrency: CEILING_CONCURRENCY },
    { nodes: 10000, concurrency: CEILING_CONCURRENCY },
  ],
  coldStart: coldStartCases({ nodes: 2000, services: 200 }, [1, 2, 4]),
  plots: [
    { nodes: 5000, limits: "defaults", latencyMs: 50 },
    { nodes: 5000, limits: "tuned", latencyMs: 50 },
  ],
};

export const QUICK_PLAN: BenchPlan = {
  name: "quick",
  nodeInit: [
    { nodes: 150, limits: "defaults", latencyMs: 50 },
    { nodes: 500, limits: "tuned", latencyMs: 0 },
    { nodes: 500, limits: "tuned", latencyMs: 50 },
  ],
  threads: { case: { nodes: 500, limits: "tuned", latencyMs: 50 }, threads: [0, 2] },
  loadBalancers: [
    { services: 40, nodes: 20, limits: "defaults", latencyMs: 50 },
    { services: 200, nodes: 20, limits: "tuned", latencyMs: 50 },
  ],
  steady: [
    {
      nodes: 0,
      services: 0,
      latencyMs: 50,
      windowSeconds: 0,
      live: { leaseSeconds: 40, heartbeatSeconds: 30 },
      routes: true,
      burst: 100,
    },
    {
      nodes: 500,
      services: 50,
      latencyMs: 50,
      windowSeconds: 30,
      live: { leaseSeconds: 40, heartbeatSeconds: 30 },
      routes: true,
      burst: 100,
    },
  ],
  ceiling: [{ nodes: 500, concurrency: CEILING_CONCURRENCY }],
  coldStart: coldStartCases({ nodes: 300, services: 30 }, [2]),
  plots: [
    { nodes: 150, limits: "defaults", latencyMs: 50 },
    { nodes: 500, limits: "tuned", latencyMs: 50 },
  ],
};

export const BIG_PLAN: BenchPlan = {
  name: "big",
  nodeInit: [{ nodes: 20000, limits: "tuned", latencyMs: 50 }],
  threads: { case: { nodes: 20000, limits: "tuned", latencyMs: 50 }, threads: [0, 1, 2, 4, 8] },
  loadBalancers: [
    { services: 2000, nodes: 100, limits: "tuned", latencyMs: 50 },
    { services: 5000, nodes: 100, limits: "tuned", latencyMs: 50 },
  ],
  steady: [
    { nodes: 0, services: 0, latencyMs: 50, windowSeconds: 0, live: KUBELET, burst: 1000 },
    { nodes: 5000, services: 1000, latencyMs: 50, windowSeconds: 300, live: KUBELET },
    { nodes: 20000, services: 2000, latencyMs: 50, windowSeconds: 300, live: KUBELET },
    { nodes: 100000, services: 5000, latencyMs: 50, windowSeconds: 300, live: KUBELET, burst: 1000 },
  ],
  ceiling: [{ nodes: 20000, concurrency: 512 }],
  coldStart: coldStartCases({ nodes: 20000, services: 2000 }, [1, 2, 4, 8]),
  plots: [{ nodes: 20000, limits: "tuned", latencyMs: 50 }],
};

export const PLANS: Readonly<Record<PlanName, BenchPlan>> = { quick: QUICK_PLAN, full: FULL_PLAN, big: BIG_PLAN };

/** The plan with every live case's Lease duration and heartbeat period replaced where given. */
export function withLive(plan: BenchPlan, o: { leaseSeconds?: number; heartbeatSeconds?: number }): BenchPlan {
  const steady = plan.steady.map((c) =>
    c.live
      ? {
          ...c,
          live: {
            leaseSeconds: o.leaseSeconds ?? c.live.leaseSeconds,
            heartbeatSeconds: o.heartbeatSeconds ?? c.live.heartbeatSeconds,
          },
        }
      : c,
  );
  return { ...plan, steady };
}

/**
 * The plan with the threads scenario run at `threads` and the mixed cold start at 0 (the case both managers
 * run) and each of `threads` above 0, where given.
 */
export function withThreads(plan: BenchPlan, threads?: readonly number[]): BenchPlan {
  if (!threads) return plan;
  const size = plan.coldStart[0];
  const coldStart = size ? coldStartCases(size, threads) : [];
  return { ...plan, threads: { ...plan.threads, threads }, coldStart };
}

export const sameCase = (a: NodeInitCase, b: NodeInitCase): boolean =>
  a.nodes === b.nodes && a.limits === b.limits && a.latencyMs === b.latencyMs;
