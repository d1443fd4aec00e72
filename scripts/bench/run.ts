/**
 * What every measured run shares: a fresh control plane, the shared fake cloud and a manager started on
 * it (kwok too when the Nodes are live), the manager's CPU / memory / API requests / cloud calls gathered
 * into one record, and everything stopped in `finally`.
 */
import { join } from "node:path";
import { mkdirSync, rmSync } from "node:fs";
import type { ControlPlane } from "../control-plane/control-plane.ts";
import { auditOffset, countRequests, type RequestCounts } from "./audit.ts";
import { startCloud, type CloudSettings, type RunningCloud } from "./cloud.ts";
import { startBenchControlPlane } from "./cluster.ts";
import { startKwok, type LiveNodes, type RunningKwok } from "./kwok.ts";
import { startManager, type Binaries, type GoCloud, type Limits, type ManagerSettings } from "./managers.ts";
import type { RunningManager } from "./managers.ts";
import { readThreadCpu, type ThreadCpu } from "./proc-stats.ts";

export interface BenchContext {
  readonly bin: Binaries;
  /** Where control planes, logs and cloud counters of each run go. */
  readonly workDir: string;
  readonly log: (line: string) => void;
  /** Run our manager under Bun's CPU and heap profilers (profiles land in each run's directory). */
  readonly profile?: boolean;
  /** The tuned limits (`--qps`, `--syncs`). */
  readonly tuned: Limits;
  readonly goCloud: GoCloud;
}

export interface Usage {
  readonly cpuSeconds: number;
  /** Of `cpuSeconds`, by kind of thread (read from the live threads when the work was done). */
  readonly threadCpu?: ThreadCpu;
  readonly peakRssMiB: number;
  /** [seconds since the manager started, RSS MiB], one point a second. */
  readonly rss: readonly (readonly [number, number])[];
  readonly requests: RequestCounts;
  readonly cloudCalls: Record<string, number>;
  readonly cloudCallsTotal: number;
}

export interface Session {
  readonly cp: ControlPlane;
  readonly dir: string;
  /** Starts the shared fake cloud (before the clock of a scenario runs). */
  cloud(settings: CloudSettings): Promise<RunningCloud>;
  /** Starts the manager on the cloud; API requests and CPU count from here. */
  start(settings: ManagerSettings): RunningManager;
  /** Starts kwok, which keeps every annotated Node alive until the session ends. */
  live(live: LiveNodes): RunningKwok;
  /** CPU now (the manager keeps running), cloud calls and API requests so far. */
  usage(): Promise<Usage>;
  /**
   * Waits until the manager has sent nothing for `quietMs` (both send events in the background, after
   * the work they report), so that `usage()` counts the whole job.
   */
  settle(quietMs?: number, maxMs?: number): Promise<void>;
}

let runs = 0;

/** Runs `body` against a fresh control plane and tears everything down afterwards. */
export async function withSession<T>(ctx: BenchContext, name: string, body: (s: Session) => Promise<T>): Promise<T> {
  runs += 1;
  const dir = join(ctx.workDir, `${String(runs).padStart(2, "0")}-${name}`);
  mkdirSync(dir, { recursive: true });
  const cp = await startBenchControlPlane(dir, "control-plane", () => undefined);
  let manager: RunningManager | undefined;
  let cloud: RunningCloud | undefined;
  let kwok: RunningKwok | undefined;
  let offset = 0;
  const session: Session = {
    cp,
    dir,
    async cloud(settings) {
      cloud = await startCloud(ctx.bin.ours, dir, settings);
      return cloud;
    },
    start(settings) {
      if (!cloud) throw new Error("the cloud is started before the manager");
      offset = auditOffset(cp.auditLog);
      const profile = settings.profile ?? ctx.profile;
      manager = startManager({
        bin: ctx.bin,
        settings: { ...settings, profile },
        kubeconfig: cp.kubeconfigs.ccm,
        dir,
        cloud,
        goCloud: ctx.goCloud,
      });
      return manager;
    },
    live(live) {
      if (!ctx.bin.kwok) throw new Error("live Nodes need kwok, which was not built for this plan");
      kwok = startKwok(ctx.bin.kwok, cp.kubeconfigs.admin, dir, live);
      return kwok;
    },
    async settle(quietMs = 2000, maxMs = 120_000) {
      const deadline = Date.now() + maxMs;
      let size = auditOffset(cp.auditLog);
      let quietSince = Date.now();
      while (Date.now() - quietSince < quietMs && Date.now() < deadline) {
        await Bun.sleep(250);
        const now = auditOffset(cp.auditLog);
        if (now !== size) quietSince = Date.now();
        size = now;
      }
    },
    async usage() {
      if (!manager) throw new Error("no manager started");
      const sample = manager.sampler.sample() ?? manager.sampler.samples.at(-1);
      const cloudCalls = await manager.calls();
      return {
        cpuSeconds: sample?.cpuSeconds ?? 0,
        threadCpu: readThreadCpu(manager.pid),
        peakRssMiB: sample?.peakRssMiB ?? 0,
        rss: manager.sampler.samples.map((x) => [Math.round(x.t / 100) / 10, Math.round(x.rssMiB)] as const),
        requests: countRequests(cp.auditLog, offset),
        cloudCalls,
        cloudCallsTotal: Object.values(cloudCalls).reduce((a, b) => a + b, 0),
      };
    },
  };
  try {
    return await body(session);
  } finally {
    await manager?.stop();
    await kwok?.stop();
    await cloud?.stop();
    await cp.stop();
    rmSync(join(cp.dir, "etcd-data"), { recursive: true, force: true });
  }
}
