/**
 * Node initialisation: N Nodes registered as kubelet does (uninitialized taint) before the manager starts;
 * the clock runs from the manager's start until every Node is initialised (taint gone, providerID and the
 * cloud's InternalIP in place). Nodes carry Ready=True, so neither lifecycle controller asks the cloud
 * about them: every cloud call counted is the node controllers' own.
 */
import { NODES } from "../../../src/kube/api.ts";
import type { Node } from "../../../src/kube/objects.ts";
import { createAll, track } from "../load.ts";
import { DEFAULT_LIMITS, type Limits, type ManagerKind } from "../managers.ts";
import { isInitialised, registeredNode } from "../objects.ts";
import { withSession, type BenchContext, type Usage } from "../run.ts";
import { downsample, type Timeline } from "../timeline.ts";

export type LimitsName = "defaults" | "tuned";

export interface NodeInitCase {
  readonly nodes: number;
  readonly limits: LimitsName;
  readonly latencyMs: number;
}

export interface NodeInitResult extends Usage {
  readonly manager: ManagerKind;
  readonly threads: number;
  readonly seconds: number;
  readonly nodesPerSecond: number;
  readonly firstInitialisedSeconds: number;
  readonly requestsPerNode: number;
  readonly cloudCallsPerNode: number;
  readonly timeline: Timeline;
  /** Threads scenario: p99 of the main thread's event-loop lag over the run (seconds, bucket bound). */
  readonly lagP99Seconds?: number;
}

export const limitsOf = (ctx: BenchContext, name: LimitsName): Limits =>
  name === "defaults" ? DEFAULT_LIMITS : ctx.tuned;

/** Generous: the slowest expected pace (QPS 20 and three writes per Node) with room to spare. */
function timeoutMs(c: NodeInitCase): number {
  const perNode = c.limits === "defaults" ? 400 : 100;
  return 120_000 + c.nodes * perNode;
}

export interface RunOptions {
  /** Our manager only: `--controller-threads`. */
  readonly threads?: number;
  /** More manager flags (experiments). */
  readonly extraArgs?: readonly string[];
  /** Our manager only: write CPU and heap profiles (see ManagerSettings.profile). */
  readonly profile?: boolean;
}

export async function runNodeInit(
  ctx: BenchContext,
  c: NodeInitCase,
  manager: ManagerKind,
  o: RunOptions = {},
): Promise<NodeInitResult> {
  const threads = o.threads ?? 0;
  const name = `node-init-${c.nodes}-${c.limits}-${c.latencyMs}ms-${manager}${threads ? `-t${threads}` : ""}`;
  ctx.log(`${name}: registering ${c.nodes} nodes`);
  return withSession(ctx, name, async (session) => {
    const admin = session.cp.admin;
    await createAll(
      admin,
      NODES,
      Array.from({ length: c.nodes }, (_, k) => registeredNode(k + 1)),
    );
    const tracker = await track<Node>(admin, NODES, isInitialised);
    try {
      await session.cloud({ latencyMs: c.latencyMs, instances: c.nodes });
      const started = Date.now();
      tracker.restart();
      const limits = limitsOf(ctx, c.limits);
      session.start({
        kind: manager,
        limits,
        latencyMs: c.latencyMs,
        threads,
        extraArgs: o.extraArgs,
        profile: o.profile,
      });
      await tracker.waitFor(c.nodes, timeoutMs(c));
      const seconds = (Date.now() - started) / 1000;
      // Under a saturated budget the Synced events of a burst trail behind the Nodes (upstream's client
      // sends them in step, in the same budget); both are counted until the manager is quiet.
      await session.settle(2000, 300_000);
      const usage = await session.usage();
      const timeline = tracker.timeline;
      ctx.log(
        `${name}: ${seconds.toFixed(1)} s, ${usage.requests.total} requests, ${usage.cloudCallsTotal} cloud calls, ${usage.cpuSeconds.toFixed(1)} CPU s, peak RSS ${usage.peakRssMiB.toFixed(0)} MiB`,
      );
      return {
        manager,
        threads,
        seconds,
        nodesPerSecond: c.nodes / seconds,
        firstInitialisedSeconds: (timeline[0]?.[0] ?? 0) / 1000,
        requestsPerNode: usage.requests.total / c.nodes,
        cloudCallsPerNode: usage.cloudCallsTotal / c.nodes,
        ...usage,
        timeline: downsample(timeline, 400),
      };
    } finally {
      tracker.stop();
    }
  });
}
