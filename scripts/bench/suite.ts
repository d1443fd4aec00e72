/**
 * Runs a plan: every case for both managers in the same invocation, the order alternating from case to
 * case so that slow phases of the machine hit both. A failed run is recorded and the suite goes on.
 * `save` is called after every run, so an interrupted suite leaves its results so far; with `resume` the
 * runs already in the results are skipped, so the next invocation goes on where the last one stopped.
 */
import { APISERVER_ARGS } from "./cluster.ts";
import { withLagScrape } from "./lag.ts";
import type { MachineDescription } from "./machine.ts";
import { DEFAULT_LIMITS, type ManagerKind } from "./managers.ts";
import { notes } from "./notes.ts";
import type { BenchPlan } from "./plan.ts";
import type { BenchResults, Pair } from "./results.ts";
import { runCeiling } from "./scenarios/ceiling.ts";
import { runColdStart } from "./scenarios/cold-start.ts";
import { runLoadBalancers } from "./scenarios/load-balancers.ts";
import { runNodeInit } from "./scenarios/node-init.ts";
import { runSteady } from "./scenarios/steady.ts";
import type { BenchContext } from "./run.ts";

export type ScenarioName = "nodeInit" | "threads" | "loadBalancers" | "steady" | "ceiling" | "coldStart";
export const SCENARIOS: readonly ScenarioName[] = [
  "ceiling",
  "nodeInit",
  "loadBalancers",
  "threads",
  "coldStart",
  "steady",
];

function orderFor(index: number): ManagerKind[] {
  return index % 2 === 0 ? ["ours", "go"] : ["go", "ours"];
}

export interface SuiteRun {
  readonly ctx: BenchContext;
  readonly plan: BenchPlan;
  readonly only: ReadonlySet<ScenarioName>;
  /** Only this manager's runs. */
  readonly manager?: ManagerKind;
  /** Skip runs already in `results`. */
  readonly resume: boolean;
  /** Stop after this many runs. */
  readonly maxRuns?: number;
  readonly results: BenchResults;
  /** Called after every run. */
  readonly save: () => void;
}

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** Counts the runs of one invocation against --max-runs. */
class Budget {
  #runs = 0;
  readonly #max: number;
  constructor(max = Number.POSITIVE_INFINITY) {
    this.#max = max;
  }
  get spent(): boolean {
    return this.#runs >= this.#max;
  }
  use(): void {
    this.#runs += 1;
  }
}

/** The pair of `c` in `into` (measured before), or a new one in alternating order. */
function pairFor<C, R>(c: C, into: Pair<C, R>[]): Pair<C, R> {
  const found = into.find((p) => sameJson(p.case, c));
  if (found) return found;
  const pair: Pair<C, R> = { case: c, order: orderFor(into.length) };
  into.push(pair);
  return pair;
}

/** One manager's run of a pair's case: its result, or its error (the suite goes on either way). */
async function measure<C, R>(
  s: SuiteRun,
  pair: Pair<C, R>,
  manager: ManagerKind,
  run: () => Promise<R>,
): Promise<void> {
  try {
    pair[manager] = await run();
    if (pair.errors) delete pair.errors[manager];
  } catch (error) {
    pair.errors = { ...pair.errors, [manager]: (error as Error).message };
    s.ctx.log(`run failed (${manager}): ${(error as Error).message}`);
  }
  s.save();
}

/** Which managers run a case: both, except our manager alone at `--controller-threads` above 0. */
export const managersOf = (c: unknown, order: readonly ManagerKind[]): readonly ManagerKind[] =>
  ((c as { threads?: number }).threads ?? 0) > 0 ? ["ours"] : order;

async function pairs<C, R>(
  s: SuiteRun & { budget: Budget },
  cases: readonly C[],
  run: (c: C, m: ManagerKind) => Promise<R>,
  into: Pair<C, R>[],
): Promise<void> {
  for (const c of cases) {
    const pair = pairFor(c, into);
    for (const manager of managersOf(c, pair.order)) {
      if ((s.manager && s.manager !== manager) || (s.resume && pair[manager]) || s.budget.spent) continue;
      s.budget.use();
      await measure(s, pair, manager, () => run(c, manager));
    }
  }
}

export function emptyResults(plan: BenchPlan, machine: MachineDescription, ctx: BenchContext): BenchResults {
  return {
    plan: plan.name,
    machine,
    settings: {
      limits: { defaults: DEFAULT_LIMITS, tuned: ctx.tuned },
      apiserverArgs: APISERVER_ARGS,
      goCloud: ctx.goCloud,
      notes: notes(ctx.tuned, ctx.goCloud),
    },
    nodeInit: [],
    threads: { case: plan.threads.case, runs: [], errors: [] },
    loadBalancers: [],
    steady: [],
    ceiling: [],
    coldStart: [],
  };
}

async function ceilings(s: SuiteRun & { budget: Budget }): Promise<void> {
  if (s.manager) return;
  for (const c of s.plan.ceiling) {
    let entry = s.results.ceiling.find((x) => sameJson(x.case, c));
    if ((s.resume && entry?.result) || s.budget.spent) continue;
    if (!entry) s.results.ceiling.push((entry = { case: c }));
    s.budget.use();
    try {
      entry.result = await runCeiling(s.ctx, c);
      delete entry.error;
    } catch (error) {
      entry.error = (error as Error).message;
    }
    s.save();
  }
}

async function threads(s: SuiteRun & { budget: Budget }): Promise<void> {
  if (s.manager === "go") return;
  const { plan, results, ctx } = s;
  for (const count of plan.threads.threads) {
    const done = results.threads.runs.findIndex(
      (x) => x.threads === count && sameJson(results.threads.case, plan.threads.case),
    );
    if ((s.resume && done >= 0) || s.budget.spent) continue;
    s.budget.use();
    try {
      const { result, lagP99Seconds } = await withLagScrape((serving) =>
        runNodeInit(ctx, plan.threads.case, "ours", { threads: count, extraArgs: serving }),
      );
      const run = { ...result, lagP99Seconds };
      if (done >= 0) results.threads.runs.splice(done, 1, run);
      else results.threads.runs.push(run);
    } catch (error) {
      results.threads.errors.push(`--controller-threads=${count}: ${(error as Error).message}`);
    }
    s.save();
  }
}

export async function runSuite(run: SuiteRun): Promise<void> {
  const s = { ...run, budget: new Budget(run.maxRuns) };
  const { ctx, plan, only, results } = s;
  const wanted = (name: ScenarioName): boolean => only.size === 0 || only.has(name);
  if (wanted("ceiling")) await ceilings(s);
  if (wanted("nodeInit")) await pairs(s, plan.nodeInit, (c, m) => runNodeInit(ctx, c, m), results.nodeInit);
  if (wanted("loadBalancers"))
    await pairs(s, plan.loadBalancers, (c, m) => runLoadBalancers(ctx, c, m), results.loadBalancers);
  if (wanted("threads")) await threads(s);
  if (wanted("coldStart"))
    await pairs(s, plan.coldStart, (c, m) => runColdStart(ctx, c, m), (results.coldStart ??= []));
  if (wanted("steady")) await pairs(s, plan.steady, (c, m) => runSteady(ctx, c, m), results.steady);
}
