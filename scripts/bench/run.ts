/**
 * What every measured run shares: a fresh control plane, a manager started on it, its CPU / memory /
 * API requests / cloud calls gathered into one record, and everything stopped in `finally`.
 */
import { join } from "node:path";
import { mkdirSync, rmSync } from "node:fs";
import type { ControlPlane } from "../control-plane/control-plane.ts";
import { auditOffset, countRequests, type RequestCounts } from "./audit.ts";
import { startBenchControlPlane } from "./cluster.ts";
import { startManager, type Binaries, type ManagerSettings, type RunningManager } from "./managers.ts";

export interface BenchContext {
  readonly bin: Binaries;
  /** Where control planes, logs and cloud counters of each run go. */
  readonly workDir: string;
  readonly log: (line: string) => void;
  /** Run our manager under Bun's CPU and heap profilers (profiles land in each run's directory). */
  readonly profile?: boolean;
}

export interface Usage {
  readonly cpuSeconds: number;
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
  /** Starts the manager; API requests and CPU count from here. */
  start(settings: ManagerSettings): Promise<RunningManager>;
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
  let offset = 0;
  const session: Session = {
    cp,
    dir,
    async start(settings) {
      offset = auditOffset(cp.auditLog);
      manager = await startManager(
        ctx.bin,
        { ...settings, profile: settings.profile ?? ctx.profile },
        cp.kubeconfigs.ccm,
        dir,
      );
      return manager;
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
    await cp.stop();
    rmSync(join(cp.dir, "etcd-data"), { recursive: true, force: true });
  }
}
