/**
 * Real kubelets for the end-to-end tests: whether this machine can run them (if not, the reason, printed
 * once, becomes the skip reason), and a kubelet host (one containerd, N kubelets) against the test control
 * plane whose every process is tracked, so none outlives the run. kubelet is built once and cached like
 * kube-apiserver; the first build takes minutes, so the hook that starts a host carries its own timeout.
 */
import { join } from "node:path";
import type { ControlPlane } from "../../scripts/control-plane/control-plane.ts";
import { ensureKubelet } from "../../scripts/control-plane/kubelet-binary.ts";
import { checkKubeletSupport, type KubeletSupport } from "../../scripts/control-plane/kubelet-support.ts";
import { startKubeletHost, type KubeletHost } from "../../scripts/control-plane/kubelet.ts";
import { track } from "./processes.ts";

export { hostNodeIPs, type KubeletSupport } from "../../scripts/control-plane/kubelet-support.ts";

/** For `beforeAll` hooks that may build kubelet (a cold build is several minutes on 2 cores). */
export const KUBELET_HOOK_TIMEOUT_MS = 30 * 60_000;

let support: Promise<KubeletSupport> | undefined;

/** Checked once per run. */
export function kubeletSupport(): Promise<KubeletSupport> {
  support ??= checkKubeletSupport(track).then((result) => {
    if (!result.ok) console.error(`[kubelet] the real-kubelet tests are skipped: ${result.reason}`);
    return result;
  });
  return support;
}

/** Builds kubelet if needed and starts containerd for `cp`; kubelets are added with `addKubelet`. */
export async function startKubelets(cp: ControlPlane): Promise<KubeletHost> {
  const binary = await ensureKubelet((line) => console.error(`[kubelet] ${line}`));
  const host = await startKubeletHost({ cluster: cp, binary, onSpawn: track });
  console.error(`[kubelet] containerd and kubelet logs in ${join(cp.dir, "nodes")}`);
  return host;
}
