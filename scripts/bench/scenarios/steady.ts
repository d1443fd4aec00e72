/**
 * Steady state: a cluster of initialised Nodes and LoadBalancer Services. The manager starts (tuned
 * limits, so it gets there quickly), ensures every load balancer, and once it has been quiet for a few
 * seconds the window opens: CPU seconds and RSS per minute, API requests and cloud calls in the window.
 * The window is as long as --node-status-update-frequency's default (5 minutes), so it always holds one
 * periodic address refresh of every Node.
 */
import { TUNED_LIMITS, type ManagerKind } from "../managers.ts";
import type { ProcSample } from "../proc-stats.ts";
import { withSession, type BenchContext, type Usage } from "../run.ts";
import { createLbCluster, difference } from "./load-balancers.ts";

export interface SteadyCase {
  readonly nodes: number;
  readonly services: number;
  readonly latencyMs: number;
  readonly windowSeconds: number;
}

/** One interval of the window (a minute, or the whole window when it is shorter). */
export interface MinuteFigures {
  readonly minute: number;
  readonly cpuSecondsPerMinute: number;
  readonly rssMiB: number;
}

export interface SteadyResult {
  readonly manager: ManagerKind;
  /** From start until every Service had ingress (start-up, not part of the window). */
  readonly startupSeconds: number;
  readonly startup: Usage;
  readonly minutes: readonly MinuteFigures[];
  readonly window: Usage;
  readonly cpuSecondsPerMinute: number;
  readonly rssMiB: number;
}

export async function runSteady(ctx: BenchContext, c: SteadyCase, manager: ManagerKind): Promise<SteadyResult> {
  const name = `steady-${c.nodes}-${c.services}-${manager}`;
  ctx.log(`${name}: ${c.nodes} initialised nodes, ${c.services} services`);
  return withSession(ctx, name, async (session) => {
    const admin = session.cp.admin;
    const tracker = await createLbCluster(admin, c.nodes, c.services);
    try {
      const started = Date.now();
      const running = await session.start({
        kind: manager,
        limits: TUNED_LIMITS,
        latencyMs: c.latencyMs,
        instances: c.nodes,
      });
      await tracker.waitFor(c.services, 600_000);
      const startupSeconds = (Date.now() - started) / 1000;
      await session.settle(5000);
      const startup = await session.usage();
      ctx.log(`${name}: all ingress after ${startupSeconds.toFixed(1)} s; measuring ${c.windowSeconds} s`);
      const intervalMs = Math.min(60, c.windowSeconds) * 1000;
      const minutes: MinuteFigures[] = [];
      let previous = running.sampler.sample();
      for (let minute = 1; minute * intervalMs <= c.windowSeconds * 1000; minute++) {
        await Bun.sleep(intervalMs);
        const now = running.sampler.sample();
        minutes.push(perMinute(minute, previous, now, intervalMs));
        previous = now;
      }
      const window = difference(await session.usage(), startup);
      const cpuSecondsPerMinute = (window.cpuSeconds * 60) / c.windowSeconds;
      const rssMiB = minutes.at(-1)?.rssMiB ?? 0;
      ctx.log(`${name}: ${cpuSecondsPerMinute.toFixed(2)} CPU s per minute, RSS ${rssMiB.toFixed(0)} MiB`);
      return { manager, startupSeconds, startup, minutes, window, cpuSecondsPerMinute, rssMiB };
    } finally {
      tracker.stop();
    }
  });
}

function perMinute(
  minute: number,
  before: ProcSample | undefined,
  after: ProcSample | undefined,
  intervalMs: number,
): MinuteFigures {
  const cpu = (after?.cpuSeconds ?? 0) - (before?.cpuSeconds ?? 0);
  return { minute, cpuSecondsPerMinute: (cpu * 60_000) / intervalMs, rssMiB: after?.rssMiB ?? 0 };
}
