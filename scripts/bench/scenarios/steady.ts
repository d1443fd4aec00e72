/**
 * Steady state: a cluster of initialised Nodes and LoadBalancer Services, the Nodes live (kwok renews
 * their Leases and posts their status heartbeats, spread evenly over the heartbeat period) or static. The
 * manager starts (tuned limits, so it gets there quickly), ensures every load balancer (and every route,
 * when routes are on), and once it has been quiet for a few seconds (and, with routes on live Nodes, one
 * heartbeat period after the last route) the window opens: CPU seconds and RSS per minute, API requests
 * and cloud calls in the window. A window as long as --node-status-update-
 * frequency's default (5 minutes) holds one periodic address refresh of every Node. After the window an
 * optional burst registers new Nodes at once and times them to initialised, on the live cluster.
 */
import { createAdminApi } from "../../control-plane/admin.ts";
import { waitForCalls } from "../cloud.ts";
import { KWOK_FIELD_MANAGER, type LiveNodes, type RunningKwok } from "../kwok.ts";
import type { Tracker } from "../load.ts";
import type { ManagerKind, RunningManager } from "../managers.ts";
import type { ProcSample } from "../proc-stats.ts";
import { withSession, type BenchContext, type Session, type Usage } from "../run.ts";
import { createServices, difference } from "./load-balancers.ts";
import { createNodes, runBurst, waitForLeases, type BurstResult } from "./burst.ts";
import { CLUSTER_CIDR } from "../objects.ts";

export interface SteadyCase {
  readonly nodes: number;
  readonly services: number;
  readonly latencyMs: number;
  readonly windowSeconds: number;
  /** kwok keeps the Nodes alive; static Nodes (nobody writes them) when absent. */
  readonly live?: LiveNodes;
  /** Nodes carry pod CIDRs and both managers run their route controllers. */
  readonly routes?: boolean;
  /** After the window: this many Nodes registered at once, timed until all are initialised. */
  readonly burst?: number;
}

/** One interval of the window (a minute, or the whole window when it is shorter). */
export interface MinuteFigures {
  readonly minute: number;
  readonly cpuSecondsPerMinute: number;
  readonly rssMiB: number;
}

export interface SteadyResult {
  readonly manager: ManagerKind;
  /** Seconds to create the cluster's Nodes (before the manager starts; what limits the size). */
  readonly createSeconds?: number;
  /** From start until every Service had ingress (and every route existed): start-up, not in the window. */
  readonly startupSeconds: number;
  readonly startup: Usage;
  readonly minutes: readonly MinuteFigures[];
  readonly window: Usage;
  readonly cpuSecondsPerMinute: number;
  readonly rssMiB: number;
  readonly requestsPerMinute?: number;
  readonly cloudCallsPerMinute?: number;
  /** kwok's own CPU over the window (the cost of keeping the Nodes alive, on the same machine). */
  readonly kwokCpuSecondsPerMinute?: number;
  readonly burst?: BurstResult;
}

export function steadyName(c: SteadyCase, manager: ManagerKind): string {
  const live = c.live ? `-live${c.live.leaseSeconds}s` : "";
  return `steady-${c.nodes}-${c.services}${live}${c.routes ? "-routes" : ""}-${manager}`;
}

interface Cluster {
  readonly tracker: Tracker;
  readonly kwok?: RunningKwok;
  readonly createSeconds: number;
}

/** The Nodes (and kwok with every Lease in place, when live), the Services and a tracker of their ingress. */
async function prepare(ctx: BenchContext, session: Session, c: SteadyCase, name: string): Promise<Cluster> {
  const created = Date.now();
  // Live Nodes post their last heartbeat as kwok, so its managed fields are in place (createNodes).
  const asKwok = c.live ? await createAdminApi(session.cp.kubeconfigs.admin, undefined, KWOK_FIELD_MANAGER) : undefined;
  const set = { first: 1, count: c.nodes, initialised: true, live: c.live, routes: c.routes };
  await createNodes(session.cp.admin, set, asKwok);
  const createSeconds = (Date.now() - created) / 1000;
  ctx.log(`${name}: created ${c.nodes} nodes in ${createSeconds.toFixed(1)} s`);
  const tracker = await createServices(session.cp.admin, c.services);
  if (!c.live) return { tracker, createSeconds };
  const kwok = session.live(c.live);
  await waitForLeases(session.cp.admin, c.nodes, 120_000 + c.nodes * 20);
  return { tracker, kwok, createSeconds };
}

interface Started {
  readonly running: RunningManager;
  readonly startupSeconds: number;
  readonly startup: Usage;
}

/** Starts the manager and waits until every Service has ingress (and every route exists) and it is quiet. */
async function startUp(
  ctx: BenchContext,
  session: Session,
  c: SteadyCase,
  run: { m: ManagerKind; tracker: Tracker },
): Promise<Started> {
  const { m, tracker } = run;
  await session.cloud({ latencyMs: c.latencyMs, instances: c.nodes + (c.burst ?? 0) });
  const started = Date.now();
  const clusterCIDR = c.routes ? CLUSTER_CIDR : undefined;
  const running = session.start({ kind: m, limits: ctx.tuned, latencyMs: c.latencyMs, clusterCIDR });
  await tracker.waitFor(c.services, 600_000);
  if (c.routes) await waitForCalls(running.calls, "CreateRoute", c.nodes, 600_000);
  const ready = Date.now();
  await session.settle(5000, 30_000);
  await Bun.sleep(Math.max(0, ready + afterRoutesMs(c) - Date.now()));
  return { running, startupSeconds: (ready - started) / 1000, startup: await session.usage() };
}

/**
 * How long after the last route the window waits on live Nodes: one heartbeat period and a margin. Each
 * route's NetworkUnavailable condition is a start-up write, appended to the Node's conditions, and the
 * Node's next heartbeat (kubelet's patch sets the order of its own four) moves it to the front, a real
 * change of every Node once; on a cluster whose routes exist that never happens again.
 */
function afterRoutesMs(c: SteadyCase): number {
  return c.routes && c.live ? (c.live.heartbeatSeconds + 2) * 1000 : 0;
}

export async function runSteady(ctx: BenchContext, c: SteadyCase, manager: ManagerKind): Promise<SteadyResult> {
  const name = steadyName(c, manager);
  ctx.log(`${name}: ${c.nodes} initialised nodes${c.live ? " (live)" : ""}, ${c.services} services`);
  return withSession(ctx, name, async (session) => {
    const { tracker, kwok, createSeconds } = await prepare(ctx, session, c, name);
    try {
      const { running, startupSeconds, startup } = await startUp(ctx, session, c, { m: manager, tracker });
      ctx.log(`${name}: ready after ${startupSeconds.toFixed(1)} s; measuring ${c.windowSeconds} s`);
      const kwokBefore = kwok?.sampler.sample()?.cpuSeconds ?? 0;
      const minutes = await measureWindow(running, c.windowSeconds);
      const window = difference(await session.usage(), startup);
      const kwokCpu = (kwok?.sampler.sample()?.cpuSeconds ?? 0) - kwokBefore;
      const result = figures(c, window, minutes);
      ctx.log(
        `${name}: ${result.cpuSecondsPerMinute.toFixed(2)} CPU s per minute, RSS ${result.rssMiB.toFixed(0)} MiB`,
      );
      const burst = c.burst ? await burstAfter(ctx, session, c, name) : undefined;
      const kwokCpuSecondsPerMinute = kwok && c.windowSeconds > 0 ? (kwokCpu * 60) / c.windowSeconds : undefined;
      return {
        manager,
        createSeconds,
        startupSeconds,
        startup,
        minutes,
        window,
        ...result,
        kwokCpuSecondsPerMinute,
        burst,
      };
    } finally {
      tracker.stop();
    }
  });
}

async function burstAfter(ctx: BenchContext, session: Session, c: SteadyCase, name: string): Promise<BurstResult> {
  const burst = await runBurst(session, { first: c.nodes + 1, count: c.burst ?? 0, live: c.live, routes: c.routes });
  ctx.log(`${name}: ${c.burst} new nodes initialised in ${burst.seconds.toFixed(1)} s`);
  return burst;
}

type WindowFigures = Pick<SteadyResult, "cpuSecondsPerMinute" | "rssMiB" | "requestsPerMinute" | "cloudCallsPerMinute">;

function figures(c: SteadyCase, window: Usage, minutes: readonly MinuteFigures[]): WindowFigures {
  const perMinute = (n: number): number => (c.windowSeconds > 0 ? (n * 60) / c.windowSeconds : 0);
  return {
    cpuSecondsPerMinute: perMinute(window.cpuSeconds),
    rssMiB: minutes.at(-1)?.rssMiB ?? 0,
    requestsPerMinute: perMinute(window.requests.total),
    cloudCallsPerMinute: perMinute(window.cloudCallsTotal),
  };
}

async function measureWindow(running: RunningManager, windowSeconds: number): Promise<MinuteFigures[]> {
  const intervalMs = Math.min(60, windowSeconds) * 1000;
  const minutes: MinuteFigures[] = [];
  let previous = running.sampler.sample();
  for (let minute = 1; intervalMs > 0 && minute * intervalMs <= windowSeconds * 1000; minute++) {
    await Bun.sleep(intervalMs);
    const now = running.sampler.sample();
    minutes.push(perMinute(minute, previous, now, intervalMs));
    previous = now;
  }
  return minutes;
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
