/**
 * Scenario sizes. The full plan is what the committed results come from (about an hour on 2 cores);
 * `--quick` runs every scenario small, as a smoke test of the whole pipeline (a few minutes).
 */
import type { CeilingCase } from "./scenarios/ceiling.ts";
import type { LbCase } from "./scenarios/load-balancers.ts";
import type { NodeInitCase } from "./scenarios/node-init.ts";
import type { SteadyCase } from "./scenarios/steady.ts";

export interface BenchPlan {
  readonly name: "full" | "quick";
  readonly nodeInit: readonly NodeInitCase[];
  /** Our manager alone, single-thread (0) against `--controller-threads` values, on one case. */
  readonly threads: { readonly case: NodeInitCase; readonly threads: readonly number[] };
  readonly loadBalancers: readonly LbCase[];
  readonly steady: readonly SteadyCase[];
  readonly ceiling: readonly CeilingCase[];
  /** The node-initialisation cases that get a plot. */
  readonly plots: readonly NodeInitCase[];
}

const CEILING_CONCURRENCY = 128;

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
  threads: { case: { nodes: 5000, limits: "tuned", latencyMs: 50 }, threads: [0, 2, 4] },
  loadBalancers: [
    { services: 500, nodes: 100, limits: "defaults", latencyMs: 50 },
    { services: 500, nodes: 100, limits: "tuned", latencyMs: 50 },
    { services: 2000, nodes: 100, limits: "tuned", latencyMs: 50 },
  ],
  steady: [{ nodes: 5000, services: 1000, latencyMs: 50, windowSeconds: 300 }],
  ceiling: [
    { nodes: 1000, concurrency: CEILING_CONCURRENCY },
    { nodes: 5000, concurrency: CEILING_CONCURRENCY },
    { nodes: 10000, concurrency: CEILING_CONCURRENCY },
  ],
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
  steady: [{ nodes: 500, services: 50, latencyMs: 50, windowSeconds: 30 }],
  ceiling: [{ nodes: 500, concurrency: CEILING_CONCURRENCY }],
  plots: [
    { nodes: 150, limits: "defaults", latencyMs: 50 },
    { nodes: 500, limits: "tuned", latencyMs: 50 },
  ],
};

export const sameCase = (a: NodeInitCase, b: NodeInitCase): boolean =>
  a.nodes === b.nodes && a.limits === b.limits && a.latencyMs === b.latencyMs;
