/**
 * kubelet for the real-kubelet tests and demo: `$KUBEBUILDER_ASSETS/kubelet` when present, else built once
 * from the Go module proxy in the kube-apiserver wrapper module (same Kubernetes release, same pinned
 * dependencies, same version stamp) and cached outside the repository, keyed by version. It has a cache
 * directory of its own, so building it never touches a cached kube-apiserver.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { cacheRoot, goBuild, kubernetesLdflags, KUBERNETES_VERSION } from "./binaries.ts";

export async function ensureKubelet(
  log: (line: string) => void,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  const assets = env.KUBEBUILDER_ASSETS;
  if (assets && existsSync(join(assets, "kubelet"))) return join(assets, "kubelet");
  const dir = join(cacheRoot(env), `kubelet-${KUBERNETES_VERSION}`);
  return goBuild(log, dir, {
    module: "kube-apiserver",
    pkg: "k8s.io/kubernetes/cmd/kubelet",
    output: "kubelet",
    ldflags: kubernetesLdflags(),
  });
}
