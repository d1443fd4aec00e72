/**
 * One real control plane per test run, started on first use and stopped after the last test (see
 * test/setup.ts). Run directories (logs, PKI, kubeconfigs) are kept for the last three finished runs and
 * for every run still going.
 */
import { mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { cacheRoot } from "../../scripts/control-plane/binaries.ts";
import { startControlPlane, type ControlPlane } from "../../scripts/control-plane/control-plane.ts";

let shared: Promise<ControlPlane> | undefined;

/** Run directories end in the pid of the test process that owns them. */
function ownerAlive(name: string): boolean {
  const pid = Number(name.slice(name.lastIndexOf("-") + 1));
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function runDir(): string {
  const runs = join(cacheRoot(), "test-runs");
  mkdirSync(runs, { recursive: true });
  // Never prune a directory whose test run is still going (runs in parallel share the cache).
  const old = readdirSync(runs)
    .filter((name) => !ownerAlive(name))
    .map((name) => ({ name, at: statSync(join(runs, name)).mtimeMs }))
    .sort((a, b) => b.at - a.at)
    .slice(2)
    // Another test run on this machine may still be using its directory (its etcd data is in there).
    .filter(({ name }) => !isRunning(Number(name.slice(name.lastIndexOf("-") + 1))));
  for (const { name } of old) rmSync(join(runs, name), { recursive: true, force: true });
  return join(runs, `${new Date().toISOString().replace(/[:.]/g, "-")}-${process.pid}`);
}

function isRunning(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

export function controlPlane(): Promise<ControlPlane> {
  shared ??= startControlPlane({ dir: runDir(), log: (line) => console.error(`[control-plane] ${line}`) }).then((cp) => {
    console.error(`[control-plane] ${cp.server}; logs and kubeconfigs in ${cp.dir}`);
    return cp;
  });
  return shared;
}

export async function stopControlPlane(): Promise<void> {
  if (!shared) return;
  const cp = await shared.catch(() => undefined);
  shared = undefined;
  await cp?.stop();
}
