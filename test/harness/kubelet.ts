/**
 * Real kubelets for the end-to-end tests: whether this machine can run them (if not, the reason, printed
 * once, becomes the skip reason), the host addresses usable as `--node-ip`, and a kubelet host (one
 * containerd, N kubelets) against the test control plane whose every process is tracked, so none outlives
 * the run. kubelet is built once and cached like kube-apiserver; the first build takes minutes, so the
 * hook that starts a host carries its own timeout.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";
import { cniBinDir, startContainerd } from "../../scripts/control-plane/containerd.ts";
import type { ControlPlane } from "../../scripts/control-plane/control-plane.ts";
import { ensureKubelet } from "../../scripts/control-plane/kubelet-binary.ts";
import { startKubeletHost, type KubeletHost } from "../../scripts/control-plane/kubelet.ts";
import { track } from "./processes.ts";

/** For `beforeAll` hooks that may build kubelet (a cold build is several minutes on 2 cores). */
export const KUBELET_HOOK_TIMEOUT_MS = 30 * 60_000;

export type KubeletSupport = { readonly ok: true } | { readonly ok: false; readonly reason: string };

const PROGRAMS = ["containerd", "containerd-shim-runc-v2", "ctr", "runc", "unshare", "mount"];
const PACKAGES = "Debian: apt-get install containerd runc containernetworking-plugins (.ci/run installs them)";

let support: Promise<KubeletSupport> | undefined;

/** Checked once per run: root, the packages, a host address, and a containerd that starts in its sandbox. */
export function kubeletSupport(): Promise<KubeletSupport> {
  support ??= check().then((result) => {
    if (!result.ok) console.error(`[kubelet] the real-kubelet tests are skipped: ${result.reason}`);
    return result;
  });
  return support;
}

async function check(): Promise<KubeletSupport> {
  if (process.platform !== "linux") return { ok: false, reason: "kubelet and containerd need Linux" };
  if (process.getuid?.() !== 0) return { ok: false, reason: "kubelet and containerd need root (mounts, cgroups)" };
  const missing = PROGRAMS.filter((program) => !Bun.which(program));
  if (missing.length > 0) return { ok: false, reason: `${missing.join(", ")} not found (${PACKAGES})` };
  if (!cniBinDir()) return { ok: false, reason: `no CNI plugins in /usr/lib/cni or /opt/cni/bin (${PACKAGES})` };
  if (!hostNodeIPs().ipv4)
    return { ok: false, reason: "no IPv4 address on this host other than loopback, for --node-ip" };
  const dir = mkdtempSync(join(tmpdir(), "ccm-cri-probe-"));
  try {
    const containerd = await startContainerd({ stateDir: dir, logFile: join(dir, "containerd.log"), onSpawn: track });
    await containerd.stop();
    return { ok: true };
  } catch (error) {
    return { ok: false, reason: `containerd cannot run on this machine: ${(error as Error).message}` };
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

/** Builds kubelet if needed and starts containerd for `cp`; kubelets are added with `addKubelet`. */
export async function startKubelets(cp: ControlPlane): Promise<KubeletHost> {
  const binary = await ensureKubelet((line) => console.error(`[kubelet] ${line}`));
  const host = await startKubeletHost({ cluster: cp, binary, onSpawn: track });
  console.error(`[kubelet] containerd and kubelet logs in ${join(cp.dir, "nodes")}`);
  return host;
}
