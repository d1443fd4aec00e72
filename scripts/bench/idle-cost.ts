/**
 * What an idle manager costs: one fresh control plane with N initialised static Nodes (no heartbeats, no
 * Services), then each given compiled manager in turn, twice, in alternating order: 20 s to settle, then
 * its CPU seconds and RSS over the next 60 s from /proc. Periodic work and event-loop wakes show here,
 * without any watch traffic to hide them; compare two builds in one invocation.
 *
 *   bun scripts/bench/idle-cost.ts [--nodes 5000] <compiled manager> [<another compiled manager> ...]
 */
import { join } from "node:path";
import { startControlPlane } from "../control-plane/control-plane.ts";
import { cacheRoot } from "../control-plane/binaries.ts";
import { NODES } from "../../src/kube/api.ts";
import { forEachLimited } from "../../src/util/concurrency.ts";
import { initialisedNode } from "./objects.ts";
import { readProc } from "./proc-stats.ts";

const SETTLE_MS = 20_000;
const WINDOW_MS = 60_000;

async function measure(binary: string, kubeconfig: string): Promise<string> {
  const args = ["--cloud-provider=fake", `--kubeconfig=${kubeconfig}`, "--secure-port=0", "--leader-elect=false"];
  const proc = Bun.spawn([binary, ...args, "--configure-cloud-routes=false"], { stdout: "ignore", stderr: "ignore" });
  try {
    await Bun.sleep(SETTLE_MS);
    const before = readProc(proc.pid);
    await Bun.sleep(WINDOW_MS);
    const after = readProc(proc.pid);
    if (!before || !after) return `${binary}: exited early (status ${proc.exitCode})`;
    const perMinute = ((after.cpuSeconds - before.cpuSeconds) * 60_000) / WINDOW_MS;
    return `${binary}: ${perMinute.toFixed(2)} CPU s per minute, RSS ${after.rssMiB.toFixed(0)} MiB`;
  } finally {
    proc.kill("SIGTERM");
    await proc.exited;
  }
}

async function main(argv: string[]): Promise<void> {
  const at = argv.indexOf("--nodes");
  const nodes = at >= 0 ? Number(argv[at + 1]) : 5000;
  const binaries = argv.filter((_, i) => i !== at && i !== at + 1);
  if (binaries.length === 0 || !Number.isInteger(nodes) || nodes < 0) {
    console.error("usage: bun scripts/bench/idle-cost.ts [--nodes 5000] <compiled manager> [...]");
    process.exit(2);
  }
  const dir = join(cacheRoot(), "bench", `idle-${new Date().toISOString().replaceAll(":", "-")}`);
  const cp = await startControlPlane({ dir, log: () => undefined });
  try {
    const indexes = Array.from({ length: nodes }, (_, i) => i);
    await forEachLimited(indexes, 50, (i) => cp.admin.create(NODES, initialisedNode(i)).then(() => undefined));
    console.log(`${nodes} initialised static Nodes; control plane and logs in ${dir}`);
    for (const binary of [...binaries, ...binaries]) console.log(await measure(binary, cp.kubeconfigs.ccm));
  } finally {
    await cp.stop();
  }
}

if (import.meta.main) await main(process.argv.slice(2));
