/**
 * Starting either manager with the same settings: the same user (the restricted kubeconfig), the same
 * client limits and worker counts, the same cloud answers and latency per call. Ours talks to a fake cloud
 * served from this process; the Go reference carries upstream's fake inside and writes its call counters
 * to a file. Both run without leader election, serving or cloud routes.
 */
import { openSync, closeSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { FakeCloud, parseFakeConfig } from "../../providers/fake/index.ts";
import { serveFakeCloud } from "../../providers/fake/server.ts";
import { ProcSampler, type ProcSample } from "./proc-stats.ts";
import { benchInstance } from "./objects.ts";
import { terminate } from "../control-plane/control-plane.ts";

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

export interface ManagerSettings {
  readonly kind: ManagerKind;
  readonly limits: Limits;
  readonly latencyMs: number;
  /** Our manager only: `--controller-threads`. */
  readonly threads?: number;
  /** Instances the clouds know: bench-node-1 … bench-node-<instances>. */
  readonly instances: number;
  readonly extraArgs?: readonly string[];
  /** Our manager only: run under Bun's CPU and heap profilers; both write Markdown into the run's directory on exit. */
  readonly profile?: boolean;
}

export interface Binaries {
  readonly ours: string;
  readonly go: string;
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
  return [
    "--cloud-provider=fake",
    `--kubeconfig=${kubeconfig}`,
    "--leader-elect=false",
    "--secure-port=0",
    "--cluster-name=bench",
    "--configure-cloud-routes=false",
    `--kube-api-qps=${l.qps}`,
    `--kube-api-burst=${l.burst}`,
    `--concurrent-node-syncs=${l.nodeSyncs}`,
    `--concurrent-service-syncs=${l.serviceSyncs}`,
    ...(s.extraArgs ?? []),
  ];
}

export async function startManager(
  bin: Binaries,
  s: ManagerSettings,
  kubeconfig: string,
  dir: string,
): Promise<RunningManager> {
  return s.kind === "ours" ? startOurs(bin.ours, s, kubeconfig, dir) : startGo(bin.go, s, kubeconfig, dir);
}

function spawnLogged(argv: string[], dir: string, name: string, env?: Record<string, string>): Subprocess {
  const log = openSync(join(dir, `${name}.log`), "a");
  const proc = Bun.spawn(argv, { stdout: log, stderr: log, env: { ...process.env, ...env } });
  closeSync(log);
  return proc;
}

function fakeCloudConfig(s: ManagerSettings): string {
  return JSON.stringify({
    batching: true,
    maxBatchSize: 100,
    faults: { latency: `${s.latencyMs}ms` },
    defaults: { instanceType: "fake.small", zone: "zone-a", region: "region-1" },
    instances: Array.from({ length: s.instances }, (_, k) => benchInstance(k + 1)),
    loadBalancers: { ipPool: ["198.18.0.0/16"] },
  });
}

async function startOurs(binary: string, s: ManagerSettings, kubeconfig: string, dir: string): Promise<RunningManager> {
  const parsed = parseFakeConfig(fakeCloudConfig(s));
  if (!parsed.ok) throw new Error(`bench fake cloud config: ${parsed.errors.join("; ")}`);
  const engine = new FakeCloud(parsed.config);
  const server = serveFakeCloud(engine);
  const cloudConfig = join(dir, "fake-cloud.json");
  writeFileSync(cloudConfig, JSON.stringify({ endpoint: `http://127.0.0.1:${server.port}` }));
  const threads = s.threads ? [`--controller-threads=${s.threads}`] : [];
  const profile: Record<string, string> = s.profile
    ? { BUN_OPTIONS: `--cpu-prof-md --cpu-prof-dir=${dir} --heap-prof-md --heap-prof-dir=${dir}` }
    : {};
  const proc = spawnLogged(
    [binary, ...managerArgs(s, kubeconfig), `--cloud-config=${cloudConfig}`, ...threads],
    dir,
    "ours",
    profile,
  );
  const sampler = new ProcSampler(proc.pid);
  return {
    kind: "ours",
    pid: proc.pid,
    sampler,
    calls: () => Promise.resolve(engine.calls()),
    async stop() {
      const last = sampler.stop();
      await terminate(proc, MANAGER_STOP_GRACE_MS);
      await server.stop(true);
      return last;
    },
  };
}

async function startGo(binary: string, s: ManagerSettings, kubeconfig: string, dir: string): Promise<RunningManager> {
  const callsFile = join(dir, "go-calls.json");
  const argv = [
    binary,
    ...managerArgs(s, kubeconfig),
    "--use-service-account-credentials=false",
    `--fake-latency=${s.latencyMs}ms`,
    `--fake-calls-file=${callsFile}`,
  ];
  const proc = spawnLogged(argv, dir, "go");
  const sampler = new ProcSampler(proc.pid);
  // The counters file is rewritten ten times a second (so a reading may be 100 ms old).
  const calls = (): Promise<Record<string, number>> =>
    Promise.resolve(
      existsSync(callsFile) ? (JSON.parse(readFileSync(callsFile, "utf8")) as Record<string, number>) : {},
    );
  return {
    kind: "go",
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
