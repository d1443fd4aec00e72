/**
 * CPU per initialised Node, our manager alone: the compiled manager initialises N Nodes (tuned limits, no
 * cloud latency, so the run is bound by the manager's own work) on a fresh control plane; the figure is
 * the manager's CPU time from its start until it has gone quiet (its events included), divided by N.
 * Small and quick enough to compare two commits on a busy machine; repeat and take the lower figures.
 *
 *   bun scripts/bench/node-cost.ts [--nodes 1000] [--threads 0] [--runs 3] [--binary <compiled manager>] [--lag]
 * [--profile] [--latency 0] [-- <more manager flags, e.g. --kube-api-qps=5000 --concurrent-node-syncs=50>]
 *
 * Flags after `--` go to the manager after the tuned limits (the last value of a flag wins). On a machine
 * without Bun the compiled manager runs this script: `BUN_BE_BUN=1 cloud-controller-manager node-cost.js`
 * (bundled with `bun build --target=bun`); the variable is dropped before any manager is spawned.
 *
 * --profile runs the manager under Bun's CPU and heap profilers (Markdown profiles in each run's directory).
 * --lag also serves /metrics without authorisation on a local port, scrapes it every 2 s and reports the
 * p99 of the main thread's event-loop lag (`cloud_controller_manager_event_loop_lag_seconds`) over the run;
 * the scrapes cost the manager a little CPU, so compare CPU figures only between runs with the same option.
 *
 * Without --binary the working tree is compiled first (dist/cloud-controller-manager).
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { build } from "../build.ts";
import { cacheRoot } from "../control-plane/binaries.ts";
import { tunedLimits } from "./managers.ts";
import { settleExecutable } from "./page-cache.ts";
import type { BenchContext } from "./run.ts";
import { withLagScrape } from "./lag.ts";
import { threadCpuCell } from "./report.ts";
import { runNodeInit, type NodeInitResult } from "./scenarios/node-init.ts";

/** Our options, and the manager's flags after `--`. */
function splitAtDashes(all: readonly string[]): [readonly string[], readonly string[]] {
  const split = all.indexOf("--");
  return split >= 0 ? [all.slice(0, split), all.slice(split + 1)] : [all, []];
}

function option(argv: readonly string[], flag: string, fallback: number): number {
  const i = argv.indexOf(flag);
  const value = i >= 0 ? Number(argv[i + 1]) : fallback;
  if (!Number.isInteger(value) || value < 0) throw new Error(`${flag} takes a whole number`);
  return value;
}

async function main(): Promise<void> {
  // Inherited, it would make the compiled manager act as Bun instead of running.
  delete process.env.BUN_BE_BUN;
  const [argv, managerFlags] = splitAtDashes(process.argv.slice(2));
  const latencyMs = option(argv, "--latency", 0);
  const nodes = option(argv, "--nodes", 1000);
  const threads = option(argv, "--threads", 0);
  const runs = option(argv, "--runs", 3);
  const log = (line: string): void => console.error(`[node-cost] ${line}`);
  const workDir = join(cacheRoot(), "bench", `node-cost-${new Date().toISOString().replace(/[:.]/g, "-")}`);
  mkdirSync(workDir, { recursive: true });
  // Only our manager runs here: no Go reference is built or started.
  const binaryAt = argv.indexOf("--binary");
  const ours = binaryAt >= 0 ? (argv[binaryAt + 1] ?? "") : await build();
  await settleExecutable(ours);
  const ctx: BenchContext = {
    bin: { ours, go: "" },
    workDir,
    log,
    profile: argv.includes("--profile"),
    tuned: tunedLimits(),
    goCloud: "shared",
  };
  log(`runs and profiles under ${workDir}`);
  const lag = argv.includes("--lag");
  for (let run = 1; run <= runs; run++) {
    const c = { nodes, limits: "tuned", latencyMs } as const;
    const once = (serving: readonly string[]): Promise<NodeInitResult> =>
      runNodeInit(ctx, c, "ours", { threads, extraArgs: [...serving, ...managerFlags] });
    const { result: r, lagP99Seconds: p99 } = lag
      ? await withLagScrape(once)
      : { result: await once([]), lagP99Seconds: undefined };
    const perNodeUs = (r.cpuSeconds / nodes) * 1e6;
    console.log(
      `run ${run}: ${nodes} nodes, threads ${threads}: ${r.seconds.toFixed(1)} s, ${r.cpuSeconds.toFixed(2)} CPU s, ` +
        `${perNodeUs.toFixed(0)} µs CPU per node, peak RSS ${r.peakRssMiB.toFixed(0)} MiB, ${r.requestsPerNode.toFixed(2)} requests per node` +
        (lag ? `, main-thread lag p99 ${p99 === undefined ? "not scraped" : `≤ ${p99 * 1000} ms`}` : ""),
    );
    console.log(`  CPU s by thread (main · controller threads · JIT · GC · other): ${threadCpuCell(r.threadCpu)}`);
  }
}

if (import.meta.main) await main();
