/**
 * Whether this machine can run real kubelets (root, Linux, the Debian packages, a host address for
 * `--node-ip`, and a containerd that starts in its sandbox), or containerd alone (the image tests), and
 * if not, why, in one line; and the host addresses usable as `--node-ip`. Shared by the real-kubelet tests
 * (a reason becomes the skip reason) and the demo (a reason becomes its fallback to hand-written Nodes).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { cniBinDir, startContainerd } from "./containerd.ts";

export type KubeletSupport = { readonly ok: true } | { readonly ok: false; readonly reason: string };

const PROGRAMS = ["containerd", "containerd-shim-runc-v2", "ctr", "runc", "unshare", "mount"];
const PACKAGES = "Debian: apt-get install containerd runc containernetworking-plugins (.ci/run installs them)";

export async function checkKubeletSupport(onSpawn?: (proc: Subprocess) => void): Promise<KubeletSupport> {
  const fixed = hostProblem();
  if (fixed) return { ok: false, reason: fixed };
  if (!cniBinDir()) return { ok: false, reason: `no CNI plugins in /usr/lib/cni or /opt/cni/bin (${PACKAGES})` };
  if (!hostNodeIPs().ipv4)
    return { ok: false, reason: "no IPv4 address on this host other than loopback, for --node-ip" };
  return probeContainerd(onSpawn);
}

/**
 * Whether containerd runs here with its runc (root, the programs, a probe start), for tests that run
 * containers with `ctr` and need no kubelet, CNI or node address.
 */
export async function checkContainerdSupport(onSpawn?: (proc: Subprocess) => void): Promise<KubeletSupport> {
  const fixed = hostProblem();
  return fixed ? { ok: false, reason: fixed } : probeContainerd(onSpawn);
}

function hostProblem(): string | undefined {
  if (process.platform !== "linux") return "kubelet and containerd need Linux";
  if (process.getuid?.() !== 0) return "kubelet and containerd need root (mounts, cgroups)";
  const missing = PROGRAMS.filter((program) => !Bun.which(program));
  return missing.length > 0 ? `${missing.join(", ")} not found (${PACKAGES})` : undefined;
}

async function probeContainerd(onSpawn?: (proc: Subprocess) => void): Promise<KubeletSupport> {
  const dir = mkdtempSync(join(tmpdir(), "ccm-cri-probe-"));
  try {
    const containerd = await startContainerd({ stateDir: dir, logFile: join(dir, "containerd.log"), onSpawn });
    await containerd.stop();
    return { ok: true };
  } catch (error) {
    // One line: the failure and containerd's last log line (the directory holding the log goes away).
    const lines = (error as Error).message.split("\n");
    const why = lines.length > 1 ? `${lines[0]} ${lines.at(-1)}` : lines[0];
    return { ok: false, reason: `containerd cannot run on this machine: ${why}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The host's own addresses, one per family, for `--node-ip` (kubelet refuses loopback and link-local
 * addresses, and any address no interface holds).
 */
export function hostNodeIPs(): { readonly ipv4?: string; readonly ipv6?: string } {
  const addresses = Object.values(networkInterfaces())
    .flatMap((list) => list ?? [])
    .filter((a) => !a.internal);
  const ipv4 = addresses.find((a) => a.family === "IPv4" && !a.address.startsWith("169.254."))?.address;
  const ipv6 = addresses.find((a) => a.family === "IPv6" && a.scopeid === 0 && !/^fe[89ab]/i.test(a.address))?.address;
  return { ...(ipv4 ? { ipv4 } : {}), ...(ipv6 ? { ipv6 } : {}) };
}
