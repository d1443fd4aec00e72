/**
 * What a Node heartbeat costs a manager: one fresh control plane with N initialised static Nodes, then
 * each given compiled manager in turn: 20 s to settle, its CPU over 30 s with nothing happening, then over
 * 30 s while this script posts status heartbeats (kubelet's strategic-merge patch of the Ready condition)
 * at a steady rate spread over the Nodes. The difference, divided by the heartbeats sent, is the CPU one
 * watch event of a live cluster costs. `--profile` runs the manager under Bun's CPU profiler (Markdown in
 * the control plane's directory). `--warm S` posts heartbeats for S seconds before the window with them,
 * so that the code they run is compiled to its final tier first, as in a manager that has run for days.
 *
 *   bun scripts/bench/heartbeat-cost.ts [--nodes 5000] [--rate 200] [--warm 0] [--profile] <compiled manager> [...]
 */
import type { ControlPlane } from "../control-plane/control-plane.ts";
import { NODES } from "../../src/kube/api.ts";
import { forEachLimited } from "../../src/util/concurrency.ts";
import { rfc3339 } from "../../src/util/clock.ts";
import { nodeName } from "./objects.ts";
import { settleExecutable } from "./page-cache.ts";
import { readProc } from "./proc-stats.ts";
import { withManager, withStaticNodes } from "./static-cluster.ts";

const SETTLE_MS = 20_000;
const WINDOW_MS = 30_000;

function heartbeat(): object {
  const now = rfc3339(Date.now());
  return {
    status: { conditions: [{ type: "Ready", status: "True", reason: "KubeletReady", lastHeartbeatTime: now }] },
  };
}

/** Posts `rate` heartbeats a second over the Nodes until `until`; resolves how many were sent. */
async function beat(cp: ControlPlane, nodes: number, rate: number, until: number): Promise<number> {
  let sent = 0;
  const started = Date.now();
  while (Date.now() < until) {
    const due = Math.floor(((Date.now() - started) / 1000) * rate);
    const batch = Array.from({ length: due - sent }, (_, k) => ((sent + k) % nodes) + 1);
    sent = due;
    await forEachLimited(batch, 20, (i) =>
      cp.admin
        .patch(NODES, nodeName(i), heartbeat(), { subresource: "status", type: "strategic" })
        .then(() => undefined),
    );
    await Bun.sleep(20);
  }
  return sent;
}

interface Options {
  readonly nodes: number;
  readonly rate: number;
  readonly warmMs: number;
  readonly profile: boolean;
}

async function measure(binary: string, cp: ControlPlane, o: Options) {
  const env = o.profile ? { ...process.env, BUN_OPTIONS: `--cpu-prof-md --cpu-prof-dir=${cp.dir}` } : process.env;
  return withManager(binary, cp, { env }, async (pid, exitCode) => {
    await Bun.sleep(SETTLE_MS);
    const start = readProc(pid);
    await Bun.sleep(WINDOW_MS);
    const quiet = readProc(pid);
    if (o.warmMs > 0) await beat(cp, o.nodes, o.rate, Date.now() + o.warmMs);
    const warmed = o.warmMs > 0 ? readProc(pid) : quiet;
    const sent = await beat(cp, o.nodes, o.rate, Date.now() + WINDOW_MS);
    const live = readProc(pid);
    if (!start || !quiet || !warmed || !live) return `${binary}: exited early (status ${exitCode()})`;
    const idle = quiet.cpuSeconds - start.cpuSeconds;
    const busy = live.cpuSeconds - warmed.cpuSeconds;
    const perEvent = ((busy - idle) / sent) * 1e6;
    return `${binary}: ${idle.toFixed(2)} CPU s quiet, ${busy.toFixed(2)} CPU s with ${sent} heartbeats: ${perEvent.toFixed(0)} µs per heartbeat`;
  });
}

async function main(argv: string[]): Promise<void> {
  const value = (flag: string, fallback: number): number => {
    const at = argv.indexOf(flag);
    return at >= 0 ? Number(argv[at + 1]) : fallback;
  };
  const nodes = value("--nodes", 5000);
  const rate = value("--rate", 200);
  const warm = value("--warm", 0);
  const profile = argv.includes("--profile");
  const valued = ["--nodes", "--rate", "--warm"];
  const binaries = argv.filter((a, i) => !a.startsWith("--") && !valued.includes(argv[i - 1] ?? ""));
  if (binaries.length === 0 || !Number.isInteger(nodes) || nodes < 1 || !(rate > 0) || !(warm >= 0)) {
    console.error(
      "usage: bun scripts/bench/heartbeat-cost.ts [--nodes 5000] [--rate 200] [--warm 0] [--profile] <manager> [...]",
    );
    process.exit(2);
  }
  const options = { nodes, rate, warmMs: warm * 1000, profile };
  for (const binary of binaries) await settleExecutable(binary);
  await withStaticNodes("heartbeat", nodes, async (cp) => {
    for (const binary of binaries) console.log(await measure(binary, cp, options));
  });
}

if (import.meta.main) await main(process.argv.slice(2));
