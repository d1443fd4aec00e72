/**
 * What an idle manager costs: one fresh control plane with N initialised static Nodes (no heartbeats, no
 * Services), then each given compiled manager in turn, twice, in alternating order: 20 s to settle, then
 * its CPU seconds and RSS over the next 60 s from /proc. Periodic work and event-loop wakes show here,
 * without any watch traffic to hide them; compare two builds in one invocation.
 *
 *   bun scripts/bench/idle-cost.ts [--nodes 5000] <compiled manager> [<another compiled manager> ...]
 */
import type { ControlPlane } from "../control-plane/control-plane.ts";
import { readProc } from "./proc-stats.ts";
import { settleExecutable } from "./page-cache.ts";
import { withManager, withStaticNodes } from "./static-cluster.ts";

const SETTLE_MS = 20_000;
const WINDOW_MS = 60_000;

async function measure(binary: string, cp: ControlPlane): Promise<string> {
  return withManager(binary, cp, {}, async (pid, exitCode) => {
    await Bun.sleep(SETTLE_MS);
    const before = readProc(pid);
    await Bun.sleep(WINDOW_MS);
    const after = readProc(pid);
    if (!before || !after) return `${binary}: exited early (status ${exitCode()})`;
    const perMinute = ((after.cpuSeconds - before.cpuSeconds) * 60_000) / WINDOW_MS;
    return `${binary}: ${perMinute.toFixed(2)} CPU s per minute, RSS ${after.rssMiB.toFixed(0)} MiB`;
  });
}

async function main(argv: string[]): Promise<void> {
  const at = argv.indexOf("--nodes");
  const nodes = at >= 0 ? Number(argv[at + 1]) : 5000;
  const binaries = argv.filter((_, i) => i !== at && i !== at + 1);
  if (binaries.length === 0 || !Number.isInteger(nodes) || nodes < 0) {
    console.error("usage: bun scripts/bench/idle-cost.ts [--nodes 5000] <compiled manager> [...]");
    process.exit(2);
  }
  for (const binary of binaries) await settleExecutable(binary);
  await withStaticNodes("idle", nodes, async (cp) => {
    for (const binary of [...binaries, ...binaries]) console.log(await measure(binary, cp));
  });
}

if (import.meta.main) await main(process.argv.slice(2));
