/**
 * Scale benchmark, side by side with the Go reference cloud-controller-manager (k8s.io/cloud-provider,
 * built from the Go module proxy), both on one fake cloud served out of process: node initialisation,
 * load balancers, steady state on live Nodes (kwok), a burst on a live cluster, worker threads, and the
 * ceiling of this machine's API server.
 *
 *   npm run bench                      full plan (about an hour on 2 cores) → bench/results.{json,md},
 *                                      plots and the README's Benchmarks tables
 *   npm run bench -- --quick           every scenario small (a few minutes) → dist/bench-quick/
 *   npm run bench -- --plan big        5,000 to 100,000 live Nodes, for a many-core machine → bench/big/
 *   npm run bench -- --pack DIR        an offline bundle: DIR/ccm-bench-<part>.tar.xz (see scripts/bench/pack.ts)
 *
 * Every run is written to <out>/results.json (and results.md) as soon as it ends; --resume skips the runs
 * already there, so a plan cut off by a time limit goes on where it stopped. `--help` lists the options.
 *
 * The compiled manager can run this file in place of Bun (BUN_BE_BUN=1, as the bundle does); that variable
 * must not reach the managers the benchmark starts (the same binary), so it is dropped here first.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { build } from "./build.ts";
import { cacheRoot } from "./control-plane/binaries.ts";
import { ensureKwok } from "./bench/kwok.ts";
import { describeMachine } from "./bench/machine.ts";
import { tunedLimits, type Binaries } from "./bench/managers.ts";
import { parseOptions, type Options } from "./bench/options.ts";
import { pack } from "./bench/pack.ts";
import { settleExecutable } from "./bench/page-cache.ts";
import { PLANS, withLive, withThreads, type BenchPlan } from "./bench/plan.ts";
import { publish } from "./bench/publish.ts";
import { ensureRefCcm } from "./bench/ref-ccm.ts";
import type { BenchResults } from "./bench/results.ts";
import type { BenchContext } from "./bench/run.ts";
import { emptyResults, runSuite } from "./bench/suite.ts";

delete process.env.BUN_BE_BUN;

const root = process.env.CCM_BENCH_ROOT ?? join(import.meta.dir, "..");
const DEFAULT_OUT: Readonly<Record<BenchPlan["name"], string>> = {
  quick: "dist/bench-quick",
  full: "bench",
  big: "bench/big",
};

const log = (line: string): void => console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}`);

/** kwok is built only when some case to run has live Nodes (or for the bundle, which carries everything). */
function needsKwok(plan: BenchPlan, o: Options): boolean {
  return o.pack !== undefined || ((o.only.size === 0 || o.only.has("steady")) && plan.steady.some((c) => c.live));
}

async function binaries(plan: BenchPlan, o: Options): Promise<Binaries> {
  const ours = o.oursBinary ?? (await build());
  const go = o.goBinary ?? (await ensureRefCcm(log));
  const kwok = needsKwok(plan, o) ? (o.kwokBinary ?? (await ensureKwok(log))) : o.kwokBinary;
  for (const manager of [ours, go])
    if (!(await settleExecutable(manager)))
      log(`${manager} could not be dropped from the page cache: RSS may read high`);
  return { ours: resolve(ours), go: resolve(go), kwok: kwok && resolve(kwok) };
}

/**
 * Earlier results of the same plan in `out`, when this invocation adds to them (--resume, --only,
 * --manager); an error when they were measured with other limits or another cloud.
 */
function earlier(out: string, plan: BenchPlan, o: Options, ctx: BenchContext): BenchResults | undefined {
  const file = join(out, "results.json");
  const adding = o.resume || o.only.size > 0 || o.manager !== undefined;
  if (!adding || !existsSync(file)) return undefined;
  const results = JSON.parse(readFileSync(file, "utf8")) as BenchResults;
  if (results.plan !== plan.name) return undefined;
  const same = JSON.stringify(results.settings.limits.tuned) === JSON.stringify(ctx.tuned);
  if (!same || (results.settings.goCloud ?? "in-process") !== ctx.goCloud) {
    throw new Error(`${file} was measured with other tuned limits or another --go-cloud; choose another --out`);
  }
  return results;
}

async function main(): Promise<number> {
  const parsed = parseOptions(process.argv.slice(2));
  if (!parsed.ok) {
    console.error(parsed.error.startsWith("npm run bench") ? parsed.error : `error: ${parsed.error}`);
    return parsed.error.startsWith("npm run bench") ? 0 : 2;
  }
  const o = parsed.options;
  const plan = withThreads(withLive(PLANS[o.plan], o), o.threads);
  const out = resolve(o.out ?? join(root, DEFAULT_OUT[plan.name]));
  if (o.reportOnly) {
    publish(JSON.parse(readFileSync(join(out, "results.json"), "utf8")) as BenchResults, out, root);
    return 0;
  }
  const bin = await binaries(plan, o);
  if (o.pack) {
    const parts = await pack(resolve(o.pack), bin, log);
    log(`bundle written, ${parts.length} parts: ${parts.join(" ")}`);
    log(`unpack every part in one place: for part in ccm-bench-*.tar.*; do tar xf "$part"; done`);
    return 0;
  }
  mkdirSync(out, { recursive: true });
  const workDir = join(cacheRoot(), "bench", new Date().toISOString().replace(/[:.]/g, "-"));
  const ctx: BenchContext = {
    bin,
    workDir,
    log,
    profile: o.profile,
    tuned: tunedLimits(o.qps, o.syncs),
    goCloud: o.goCloud,
  };
  log(`plan ${plan.name}; control planes and logs under ${workDir}; results in ${out}`);
  const results = earlier(out, plan, o, ctx) ?? emptyResults(plan, await describeMachine(bin.ours), ctx);
  const save = (): void => {
    writeFileSync(join(out, "results.json"), `${JSON.stringify(results, null, 2)}\n`);
    publish(results, out, root);
  };
  await runSuite({ ctx, plan, only: o.only, manager: o.manager, resume: o.resume, maxRuns: o.maxRuns, results, save });
  save();
  log(`done: ${join(out, "results.md")}`);
  return 0;
}

if (import.meta.main) process.exitCode = await main();
