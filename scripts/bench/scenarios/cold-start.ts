/**
 * Mixed cold start: the manager starts on a cluster where N Nodes wait to be initialised (uninitialized
 * taint, pod CIDRs set), M LoadBalancer Services wait for load balancers and every Node needs a route:
 * what a large cluster asks of a cloud controller manager after an outage or an upgrade. Routes are on
 * (`--configure-cloud-routes=true` with the bench's `--cluster-cidr`), tuned limits. The clock runs from
 * the manager's start until every Node is initialised, every Service has ingress and the cloud has
 * answered one CreateRoute per Node; each of the three is timed on its own as well. Nodes carry
 * Ready=True, so the lifecycle controllers do not ask the cloud about them.
 */
import { NODES } from "../../../src/kube/api.ts";
import type { Node } from "../../../src/kube/objects.ts";
import type { RunningCloud } from "../cloud.ts";
import { track, type Tracker } from "../load.ts";
import type { ManagerKind, RunningManager } from "../managers.ts";
import { CLUSTER_CIDR, isInitialised } from "../objects.ts";
import { withSession, type BenchContext, type Usage } from "../run.ts";
import { createNodes } from "./burst.ts";
import { createServices } from "./load-balancers.ts";

export interface ColdStartCase {
  readonly nodes: number;
  readonly services: number;
  readonly latencyMs: number;
  /** `--controller-threads` of our manager; the Go reference runs only the single-thread (0) case. */
  readonly threads: number;
}

/** Seconds from the manager's start until each part of the work was done (absent: not yet). */
export interface Milestones {
  readonly nodes?: number;
  readonly services?: number;
  readonly routes?: number;
}

/** How far the work is: Nodes initialised, Services with ingress, CreateRoute calls answered. */
export interface ColdStartProgress {
  readonly initialised: number;
  readonly ingress: number;
  readonly routes: number;
}

export interface ColdStartResult extends Usage {
  readonly manager: ManagerKind;
  readonly threads: number;
  /** Until all three were done. */
  readonly seconds: number;
  readonly nodesSeconds: number;
  readonly servicesSeconds: number;
  readonly routesSeconds: number;
  /** Routes in the cloud's table at the end (checked once, not timed). */
  readonly routesInCloud: number;
}

/** The milestones after `progress` was seen `elapsed` seconds after the start (the first time counts). */
export function advance(c: ColdStartCase, m: Milestones, progress: ColdStartProgress, elapsed: number): Milestones {
  return {
    nodes: m.nodes ?? (progress.initialised >= c.nodes ? elapsed : undefined),
    services: m.services ?? (progress.ingress >= c.services ? elapsed : undefined),
    routes: m.routes ?? (progress.routes >= c.nodes ? elapsed : undefined),
  };
}

/** Every Node initialised, every Service with ingress and every route created. */
export function coldStartDone(m: Milestones): boolean {
  return m.nodes !== undefined && m.services !== undefined && m.routes !== undefined;
}

type Times = Pick<ColdStartResult, "seconds" | "nodesSeconds" | "servicesSeconds" | "routesSeconds">;

/** The seconds of each part, and of the whole (the last part done). */
export function timesOf(m: Milestones): Times {
  const nodesSeconds = m.nodes ?? Number.NaN;
  const servicesSeconds = m.services ?? Number.NaN;
  const routesSeconds = m.routes ?? Number.NaN;
  return {
    seconds: Math.max(nodesSeconds, servicesSeconds, routesSeconds),
    nodesSeconds,
    servicesSeconds,
    routesSeconds,
  };
}

function summary(t: Times, usage: Usage): string {
  const parts = `nodes ${t.nodesSeconds.toFixed(1)} s, ingress ${t.servicesSeconds.toFixed(1)} s, routes ${t.routesSeconds.toFixed(1)} s`;
  const cost = `${usage.requests.total} requests, ${usage.cpuSeconds.toFixed(1)} CPU s, peak RSS ${usage.peakRssMiB.toFixed(0)} MiB`;
  return `all done after ${t.seconds.toFixed(1)} s (${parts}), ${cost}`;
}

/** What was not done by the deadline, for the error. */
export function missing(c: ColdStartCase, progress: ColdStartProgress): string {
  const parts = [
    progress.initialised < c.nodes ? `${progress.initialised} of ${c.nodes} nodes initialised` : "",
    progress.ingress < c.services ? `${progress.ingress} of ${c.services} services with ingress` : "",
    progress.routes < c.nodes ? `${progress.routes} of ${c.nodes} routes` : "",
  ];
  return parts.filter(Boolean).join(", ");
}

export function coldStartName(c: ColdStartCase, manager: ManagerKind): string {
  return `cold-start-${c.nodes}-${c.services}-${c.latencyMs}ms-${manager}${c.threads ? `-t${c.threads}` : ""}`;
}

/** Generous: QPS-bound writes for every Node, Service and route, with room to spare. */
const timeoutMs = (c: ColdStartCase): number => 180_000 + (c.nodes + c.services) * 100;

interface Watched {
  readonly nodes: Tracker;
  readonly services: Tracker;
  readonly running: RunningManager;
}

/** Polls the three counts until all are done; the milestones. */
async function waitForAll(c: ColdStartCase, w: Watched, started: number): Promise<Milestones> {
  const deadline = started + timeoutMs(c);
  let m: Milestones = {};
  for (;;) {
    const progress = {
      initialised: w.nodes.count,
      ingress: w.services.count,
      routes: (await w.running.calls())["CreateRoute"] ?? 0,
    };
    m = advance(c, m, progress, (Date.now() - started) / 1000);
    if (coldStartDone(m)) return m;
    if (Date.now() > deadline) throw new Error(`after ${timeoutMs(c) / 1000} s: ${missing(c, progress)}`);
    await Bun.sleep(100);
  }
}

async function routesInCloud(cloud: RunningCloud): Promise<number> {
  const response = await fetch(`${cloud.endpoint}/admin/state`, { signal: AbortSignal.timeout(30_000) });
  return ((await response.json()) as { routes: unknown[] }).routes.length;
}

export async function runColdStart(
  ctx: BenchContext,
  c: ColdStartCase,
  manager: ManagerKind,
): Promise<ColdStartResult> {
  const name = coldStartName(c, manager);
  ctx.log(`${name}: registering ${c.nodes} nodes with pod CIDRs, creating ${c.services} services`);
  return withSession(ctx, name, async (session) => {
    const admin = session.cp.admin;
    await createNodes(admin, { first: 1, count: c.nodes, routes: true });
    const nodes = await track<Node>(admin, NODES, isInitialised);
    let services: Tracker | undefined;
    try {
      services = await createServices(admin, c.services);
      const cloud = await session.cloud({ latencyMs: c.latencyMs, instances: c.nodes });
      const started = Date.now();
      const running = session.start({
        kind: manager,
        limits: ctx.tuned,
        latencyMs: c.latencyMs,
        threads: c.threads,
        clusterCIDR: CLUSTER_CIDR,
      });
      const times = timesOf(await waitForAll(c, { nodes, services, running }, started));
      await session.settle(2000, 300_000);
      const usage = await session.usage();
      const routes = await routesInCloud(cloud);
      if (routes < c.nodes) throw new Error(`${c.nodes} CreateRoute calls answered, but ${routes} routes in the cloud`);
      ctx.log(`${name}: ${summary(times, usage)}`);
      return { manager, threads: c.threads, ...times, routesInCloud: routes, ...usage };
    } finally {
      nodes.stop();
      services?.stop();
    }
  });
}
