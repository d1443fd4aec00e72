/**
 * How long a manager takes from exec to ready: one fresh control plane with N initialised static Nodes,
 * then each given compiled manager in turn, four times, alternating: the time until its `/readyz` answers
 * 200 (caches synced, controllers running), and its CPU seconds and RSS 3 s later. What a restart after a
 * crash or an upgrade costs before the manager works again; compare two builds in one invocation.
 *
 *   bun scripts/bench/start-time.ts [--nodes 2000] [--threads 0] <compiled manager> [...]
 */
import { parseArgs } from "node:util";
import type { ControlPlane } from "../control-plane/control-plane.ts";
import { freePort } from "../control-plane/ports.ts";
import { readProc } from "./proc-stats.ts";
import { settleExecutable } from "./page-cache.ts";
import { withManager, withStaticNodes } from "./static-cluster.ts";

const ROUNDS = 4;
const GIVE_UP_MS = 60_000;
const AFTER_MS = 3_000;

/** Milliseconds until `url` answers 200, polled every 5 ms; undefined past GIVE_UP_MS. */
async function untilReady(url: string, started: number): Promise<number | undefined> {
  while (performance.now() - started < GIVE_UP_MS) {
    const ok = await fetch(url, { tls: { rejectUnauthorized: false } }).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) return performance.now() - started;
    await Bun.sleep(5);
  }
  return undefined;
}

async function measure(binary: string, cp: ControlPlane, threads: number): Promise<string> {
  const port = await freePort();
  const started = performance.now();
  const flags = [`--secure-port=${port}`, `--controller-threads=${threads}`];
  return withManager(binary, cp, { flags }, async (pid, exitCode) => {
    const ready = await untilReady(`https://127.0.0.1:${port}/readyz`, started);
    await Bun.sleep(AFTER_MS);
    const after = readProc(pid);
    if (ready === undefined || !after) return `${binary}: not ready (status ${exitCode()})`;
    const cpu = after.cpuSeconds.toFixed(2);
    return `${binary} threads=${threads}: ready in ${ready.toFixed(0)} ms, ${cpu} CPU s, RSS ${after.rssMiB.toFixed(0)} MiB`;
  });
}

async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { nodes: { type: "string", default: "2000" }, threads: { type: "string", default: "0" } },
    allowPositionals: true,
  });
  const nodes = Number(values.nodes);
  const threads = Number(values.threads);
  if (positionals.length === 0 || !Number.isInteger(nodes) || nodes < 0 || !Number.isInteger(threads)) {
    console.error("usage: bun scripts/bench/start-time.ts [--nodes 2000] [--threads 0] <compiled manager> [...]");
    process.exit(2);
  }
  for (const binary of positionals) await settleExecutable(binary);
  await withStaticNodes("start", nodes, async (cp) => {
    for (let round = 0; round < ROUNDS; round++)
      for (const binary of positionals) console.log(await measure(binary, cp, threads));
  });
}

if (import.meta.main) await main(process.argv.slice(2));
