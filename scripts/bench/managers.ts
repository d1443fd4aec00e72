/**
 * Starting either manager with the same settings: the same user (the restricted kubeconfig), the same
 * client limits and worker counts, the same cloud. Both reach the shared fake cloud process (cloud.ts)
 * over loopback HTTP; the Go reference can instead carry upstream's in-process fake (GoCloud
 * "in-process", the benchmark's setup before the cloud was shared, kept to measure what the distance
 * costs). Both run without leader election or serving.
 */
import { closeSync, existsSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { terminate } from "../control-plane/control-plane.ts";
import { childEnv, type RunningCloud } from "./cloud.ts";
import { ProcSampler, type ProcSample } from "./proc-stats.ts";

/** How long a manager gets to exit on SIGTERM before SIGKILL. */
const MANAGER_STOP_GRACE_MS = 5000;

export type ManagerKind = "ours" | "go";

export interface Limits {
  readonly qps: number;
  readonly burst: number;
  readonly nodeSyncs: number;
  readonly serviceSyncs: number;
}

export const DEFAULT_LIMITS: Limits = { qps: 20, burst: 30, nodeSyncs: 1, serviceSyncs: 1 };
export const TUNED_LIMITS: Limits = { qps: 500, burst: 1000, nodeSyncs: 10, serviceSyncs: 10 };

/** Tuned limits with `--qps` (burst twice that) and `--syncs` (node and service workers) applied. */
export function tunedLimits(qps?: number, syncs?: number): Limits {
  const rate = qps === undefined ? {} : { qps, burst: 2 * qps };
  const workers = syncs === undefined ? {} : { nodeSyncs: syncs, serviceSyncs: syncs };
  return { ...TUNED_LIMITS, ...rate, ...workers };
}

/** Where the Go reference's cloud lives: the shared fake cloud process, or upstream's fake in its process. */
export type GoCloud = "shared" | "in-process";

export interface ManagerSettings {
  readonly kind: ManagerKind;
  readonly limits: Limits;
  /** The Go reference's in-process fake only; the shared cloud has its own (cloud.ts). */
  readonly latencyMs: number;
  /** Our manager only: `--controller-threads`. */
  readonly threads?: number;
  readonly extraArgs?: readonly string[];
  /**
   * Our manager only: run under Bun's CPU and heap profilers; both write Markdown into the run's
   * directory on exit.
   */
  readonly profile?: boolean;
  /** The cloud routes controller with this `--cluster-cidr` (off when absent). */
  readonly clusterCIDR?: string;
}

export interface Binaries {
  readonly ours: string;
  readonly go: string;
  /** Only when some case has live Nodes. */
  readonly kwok?: string;
}

export interface RunningManager {
  readonly kind: ManagerKind;
  readonly pid: number;
  readonly sampler: ProcSampler;
  /** Cloud calls so far, by operation (the Go reference's counters may lag by 100 ms). */
  calls(): Promise<Record<string, number>>;
  /** Stops the manager; resolves its last sample. */
  stop(): Promise<ProcSample | undefined>;
}

export function managerArgs(s: ManagerSettings, kubeconfig: string): string[] {
  const l = s.limits;
  const routes = s.clusterCIDR
    ? ["--configure-cloud-routes=true", `--cluster-cidr=${s.clusterCIDR}`]
    : ["--configure-cloud-routes=false"];
  return [
    "--cloud-provider=fake",
    `--kubeconfig=${kubeconfig}`,
    "--leader-elect=false",
    "--secure-port=0",
    "--cluster-name=bench",
    ...routes,
    `--kube-api-qps=${l.qps}`,
    `--kube-api-burst=${l.burst}`,
    `--concurrent-node-syncs=${l.nodeSyncs}`,
    `--concurrent-service-syncs=${l.serviceSyncs}`,
    ...(s.extraArgs ?? []),
  ];
}

export interface ManagerStart {
  readonly bin: Binaries;
  readonly settings: ManagerSettings;
  readonly kubeconfig: string;
  /** The run's directory: logs, cloud-config, profiles. */
  readonly dir: string;
  readonly cloud: RunningCloud;
  readonly goCloud: GoCloud;
}

export function startManager(m: ManagerStart): RunningManager {
  return m.settings.kind === "ours" ? startOurs(m) : startGo(m);
}

function spawnLogged(argv: string[], dir: string, name: string, env?: Record<string, string>): Subprocess {
  const log = openSync(join(dir, `${name}.log`), "a");
  const proc = Bun.spawn(argv, { stdout: log, stderr: log, env: childEnv(env) });
  closeSync(log);
  return proc;
}

function running(kind: ManagerKind, proc: Subprocess, calls: () => Promise<Record<string, number>>): RunningManager {
  const sampler = new ProcSampler(proc.pid);
  return {
    kind,
    pid: proc.pid,
    sampler,
    calls,
    async stop() {
      const last = sampler.stop();
      await terminate(proc, MANAGER_STOP_GRACE_MS);
      return last;
    },
  };
}

function startOurs(m: ManagerStart): RunningManager {
  const { settings: s, dir } = m;
  const cloudConfig = join(dir, "ours-cloud.json");
  writeFileSync(cloudConfig, JSON.stringify({ endpoint: m.cloud.endpoint, batching: true, maxBatchSize: 100 }));
  const threads = s.threads ? [`--controller-threads=${s.threads}`] : [];
  const prof = `--cpu-prof-md --cpu-prof-dir=${dir} --heap-prof-md --heap-prof-dir=${dir}`;
  const env: Record<string, string> = s.profile ? { BUN_OPTIONS: prof } : {};
  const argv = [m.bin.ours, ...managerArgs(s, m.kubeconfig), `--cloud-config=${cloudConfig}`, ...threads];
  return running("ours", spawnLogged(argv, dir, "ours", env), () => m.cloud.calls());
}

function startGo(m: ManagerStart): RunningManager {
  const { settings: s, dir } = m;
  const argv = [m.bin.go, ...managerArgs(s, m.kubeconfig), "--use-service-account-credentials=false"];
  if (m.goCloud === "shared") {
    argv.push(`--fake-cloud-endpoint=${m.cloud.endpoint}`);
    return running("go", spawnLogged(argv, dir, "go"), () => m.cloud.calls());
  }
  const callsFile = join(dir, "go-calls.json");
  argv.push(`--fake-latency=${s.latencyMs}ms`, `--fake-calls-file=${callsFile}`);
  // The counters file is rewritten ten times a second (so a reading may be 100 ms old).
  const calls = (): Promise<Record<string, number>> =>
    Promise.resolve(
      existsSync(callsFile) ? (JSON.parse(readFileSync(callsFile, "utf8")) as Record<string, number>) : {},
    );
  return running("go", spawnLogged(argv, dir, "go"), calls);
}
