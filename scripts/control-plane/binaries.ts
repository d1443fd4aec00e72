/**
 * kube-apiserver and etcd binaries for tests, the demo and benchmarks: `$KUBEBUILDER_ASSETS` when set
 * (the envtest convention), else built once from the Go module proxy with the pinned wrapper modules in
 * `go/` and cached outside the repository, keyed by version.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { processAlive } from "./process-alive.ts";
import { join } from "node:path";

export const KUBERNETES_VERSION = "v1.36.3";
export const ETCD_VERSION = "v3.6.16";
/** The helm the chart tests run (`go/helm` pins it); keep in step with that module. */
export const HELM_VERSION = "v3.19.5";

export interface KubeBinaries {
  readonly kubeApiserver: string;
  readonly etcd: string;
}

export interface GoTarget {
  /** A wrapper module under `go/`, or (with `moduleDir`) a name for messages. */
  readonly module: string;
  /** The module's directory when it lives elsewhere (the benchmark's reference CCM). */
  readonly moduleDir?: string;
  readonly pkg: string;
  readonly output: string;
  readonly ldflags: string;
}

export function cacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.CCM_CACHE_DIR ?? join(env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "cloud-controller-manager");
  mkdirSync(base, { recursive: true });
  return base;
}

export async function ensureKubeBinaries(
  log: (line: string) => void,
  env: NodeJS.ProcessEnv = process.env,
): Promise<KubeBinaries> {
  const assets = env.KUBEBUILDER_ASSETS;
  if (assets && existsSync(join(assets, "kube-apiserver")) && existsSync(join(assets, "etcd"))) {
    return { kubeApiserver: join(assets, "kube-apiserver"), etcd: join(assets, "etcd") };
  }
  const dir = join(cacheRoot(env), `kube-${KUBERNETES_VERSION}-etcd-${ETCD_VERSION}`);
  await goBuild(log, dir, {
    module: "kube-apiserver",
    pkg: "k8s.io/kubernetes/cmd/kube-apiserver",
    output: "kube-apiserver",
    ldflags: kubernetesLdflags(),
  });
  await goBuild(log, dir, { module: "etcd", pkg: "go.etcd.io/etcd/server/v3", output: "etcd", ldflags: "-s -w" });
  return { kubeApiserver: join(dir, "kube-apiserver"), etcd: join(dir, "etcd") };
}

/** helm for the chart tests, built like kube-apiserver and cached next to it. */
export async function ensureHelm(log: (line: string) => void, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return goBuild(log, join(cacheRoot(env), `helm-${HELM_VERSION}`), {
    module: "helm",
    pkg: "helm.sh/helm/v3/cmd/helm",
    output: "helm",
    ldflags: `-s -w -X helm.sh/helm/v3/internal/version.version=${HELM_VERSION}`,
  });
}

/**
 * Stripped, with the release's version stamped in as the Kubernetes build does (otherwise the binary
 * reports `v0.0.0-master`, and a kubelet's Node says so in `status.nodeInfo.kubeletVersion`).
 */
export function kubernetesLdflags(): string {
  const minor = KUBERNETES_VERSION.split(".")[1];
  return [
    "-s -w",
    `-X k8s.io/component-base/version.gitVersion=${KUBERNETES_VERSION}`,
    "-X k8s.io/component-base/version.gitMajor=1",
    `-X k8s.io/component-base/version.gitMinor=${minor}`,
    "-X k8s.io/component-base/version.gitTreeState=clean",
  ].join(" ");
}

/** Builds one binary unless cached; a lock directory keeps concurrent runs from building twice. */
export async function goBuild(log: (line: string) => void, dir: string, target: GoTarget): Promise<string> {
  const output = join(dir, target.output);
  if (existsSync(output)) return output;
  mkdirSync(dir, { recursive: true });
  const lock = join(dir, `.${target.output}.lock`);
  await acquireLock(lock);
  try {
    if (existsSync(output)) return output;
    log(`building ${target.output} from the Go module proxy (first run only; several minutes on 2 cores)…`);
    const started = Date.now();
    const tmp = `${output}.tmp-${process.pid}`;
    const proc = Bun.spawn(["go", "build", "-trimpath", "-ldflags", target.ldflags, "-o", tmp, target.pkg], {
      cwd: target.moduleDir ?? join(import.meta.dir, "go", target.module),
      env: { ...process.env, CGO_ENABLED: "0", GOFLAGS: "-mod=readonly" },
      stdout: "inherit",
      stderr: "inherit",
    });
    if ((await proc.exited) !== 0)
      throw new Error(
        `go build of ${target.pkg} failed (module ${target.moduleDir ?? `scripts/control-plane/go/${target.module}`})`,
      );
    renameSync(tmp, output);
    log(`built ${target.output} in ${((Date.now() - started) / 1000).toFixed(0)} s → ${output}`);
    return output;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

async function acquireLock(lock: string): Promise<void> {
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, "pid"), String(process.pid));
      return;
    } catch {
      if (!holderAlive(lock)) rmSync(lock, { recursive: true, force: true });
      else await Bun.sleep(1000);
    }
  }
}

/** A lock left by a killed build is taken over; one whose pid is not written yet is still being taken. */
function holderAlive(lock: string): boolean {
  const pidFile = join(lock, "pid");
  const pid = existsSync(pidFile) ? readFileSync(pidFile, "utf8").trim() : "";
  return pid === "" || processAlive(Number(pid));
}
