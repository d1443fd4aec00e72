/**
 * What the idle, heartbeat and start-time scripts share: one fresh control plane holding N initialised
 * static Nodes (bench-node-1 …), and a compiled manager on it (the fake cloud in its process, each Node
 * an instance of it as the Node says, no routes, no leader election, no serving).
 */
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startControlPlane, type ControlPlane } from "../control-plane/control-plane.ts";
import { cacheRoot } from "../control-plane/binaries.ts";
import { NODES } from "../../src/kube/api.ts";
import { forEachLimited } from "../../src/util/concurrency.ts";
import { cloudConfig } from "./cloud.ts";
import { initialisedNode } from "./objects.ts";

/** The cloud-config in the control plane's folder: every Node an instance, as the Node says. */
const CLOUD_CONFIG = "fake-cloud.json";

/** Runs `use` on a fresh control plane (under the bench cache, named `label-<time>`) with `nodes` Nodes. */
export async function withStaticNodes(
  label: string,
  nodes: number,
  use: (cp: ControlPlane) => Promise<void>,
): Promise<void> {
  const dir = join(cacheRoot(), "bench", `${label}-${new Date().toISOString().replaceAll(":", "-")}`);
  const cp = await startControlPlane({ dir, log: () => undefined });
  try {
    const indexes = Array.from({ length: nodes }, (_, i) => i + 1);
    await forEachLimited(indexes, 50, (i) => cp.admin.create(NODES, initialisedNode(i)).then(() => undefined));
    writeFileSync(join(cp.dir, CLOUD_CONFIG), cloudConfig({ latencyMs: 0, instances: nodes }));
    console.log(`${nodes} initialised static Nodes; control plane and logs in ${dir}`);
    await use(cp);
  } finally {
    await cp.stop();
    // Logs and the audit log stay for reading; etcd's data (70 MB at 2,000 Nodes) would only pile up.
    rmSync(join(cp.dir, "etcd-data"), { recursive: true, force: true });
  }
}

/** The flags of a manager on a `withStaticNodes` cluster, as its restricted identity. */
function staticManagerArgs(cp: ControlPlane): string[] {
  return [
    "--cloud-provider=fake",
    `--cloud-config=${join(cp.dir, CLOUD_CONFIG)}`,
    `--kubeconfig=${cp.kubeconfigs.ccm}`,
    "--leader-elect=false",
    "--configure-cloud-routes=false",
  ];
}

export interface ManagerOptions {
  /** Its environment (default: this process's). */
  readonly env?: Record<string, string | undefined>;
  /** Flags added to the cluster's (default: no serving). */
  readonly flags?: readonly string[];
}

/** Runs `use` while `binary` manages the control plane's cluster as the restricted identity; stops it after. */
export async function withManager<T>(
  binary: string,
  cp: ControlPlane,
  options: ManagerOptions,
  use: (pid: number, exitCode: () => number | null) => Promise<T>,
): Promise<T> {
  const { env = process.env, flags = ["--secure-port=0"] } = options;
  const proc = Bun.spawn([binary, ...staticManagerArgs(cp), ...flags], {
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
