/**
 * What the idle and heartbeat cost scripts share: one fresh control plane holding N initialised static
 * Nodes, and a compiled manager on it (the fake cloud, no routes, no leader election, no serving).
 */
import { join } from "node:path";
import { startControlPlane, type ControlPlane } from "../control-plane/control-plane.ts";
import { cacheRoot } from "../control-plane/binaries.ts";
import { NODES } from "../../src/kube/api.ts";
import { forEachLimited } from "../../src/util/concurrency.ts";
import { initialisedNode } from "./objects.ts";

/** Runs `use` on a fresh control plane (under the bench cache, named `label-<time>`) with `nodes` Nodes. */
export async function withStaticNodes(
  label: string,
  nodes: number,
  use: (cp: ControlPlane) => Promise<void>,
): Promise<void> {
  const dir = join(cacheRoot(), "bench", `${label}-${new Date().toISOString().replaceAll(":", "-")}`);
  const cp = await startControlPlane({ dir, log: () => undefined });
  try {
    const indexes = Array.from({ length: nodes }, (_, i) => i);
    await forEachLimited(indexes, 50, (i) => cp.admin.create(NODES, initialisedNode(i)).then(() => undefined));
    console.log(`${nodes} initialised static Nodes; control plane and logs in ${dir}`);
    await use(cp);
  } finally {
    await cp.stop();
  }
}

/** Runs `use` while `binary` manages the control plane's cluster as the restricted identity; stops it after. */
export async function withManager<T>(
  binary: string,
  cp: ControlPlane,
  env: Record<string, string | undefined>,
  use: (pid: number, exitCode: () => number | null) => Promise<T>,
): Promise<T> {
  const args = ["--cloud-provider=fake", `--kubeconfig=${cp.kubeconfigs.ccm}`, "--secure-port=0"];
  const proc = Bun.spawn([binary, ...args, "--leader-elect=false", "--configure-cloud-routes=false"], {
    stdout: "ignore",
    stderr: "ignore",
    env,
  });
  try {
    return await use(proc.pid, () => proc.exitCode);
  } finally {
    proc.kill("SIGTERM");
    await proc.exited;
  }
}
