/**
 * Load balancers: N LoadBalancer Services exist before the manager starts (on a cluster of initialised,
 * Ready Nodes); the clock runs until every Service shows ingress. Then one Node gets the
 * exclude-from-external-load-balancers label, and the clock runs until the cloud has seen one
 * UpdateLoadBalancer per Service.
 */
import { NODES, SERVICES, type KubeApi } from "../../../src/kube/api.ts";
import type { Service } from "../../../src/kube/objects.ts";
import { LABEL_EXCLUDE_FROM_EXTERNAL_LB } from "../../../src/kube/well-known.ts";
import { createAll, track, type Tracker } from "../load.ts";
import { waitForCalls } from "../cloud.ts";
import type { ManagerKind } from "../managers.ts";
import { LB_NAMESPACE, hasIngress, lbService, nodeName } from "../objects.ts";
import { createNodes } from "./burst.ts";
import { withSession, type BenchContext, type Usage } from "../run.ts";
import { limitsOf, type LimitsName } from "./node-init.ts";

export interface LbCase {
  readonly services: number;
  readonly nodes: number;
  readonly limits: LimitsName;
  readonly latencyMs: number;
}

export interface LbResult {
  readonly manager: ManagerKind;
  /** Until every Service has ingress. */
  readonly seconds: number;
  readonly servicesPerSecond: number;
  readonly ensure: Usage;
  /** From the label change until every load balancer was updated. */
  readonly updateSeconds: number;
  readonly update: Usage;
}

/** LoadBalancer Services, and a tracker of the Services that have ingress. */
export async function createServices(admin: KubeApi, services: number): Promise<Tracker> {
  await createAll(
    admin,
    SERVICES,
    Array.from({ length: services }, (_, k) => lbService(k + 1)),
  );
  return track<Service>(admin, SERVICES, hasIngress, { namespace: LB_NAMESPACE });
}

export async function runLoadBalancers(ctx: BenchContext, c: LbCase, manager: ManagerKind): Promise<LbResult> {
  const name = `lb-${c.services}-${c.limits}-${c.latencyMs}ms-${manager}`;
  ctx.log(`${name}: ${c.nodes} nodes, creating ${c.services} services`);
  return withSession(ctx, name, async (session) => {
    const admin = session.cp.admin;
    await createNodes(admin, { first: 1, count: c.nodes, initialised: true });
    const tracker = await createServices(admin, c.services);
    try {
      await session.cloud({ latencyMs: c.latencyMs, instances: c.nodes });
      const started = Date.now();
      const running = session.start({ kind: manager, limits: limitsOf(ctx, c.limits), latencyMs: c.latencyMs });
      await tracker.waitFor(c.services, 120_000 + c.services * (c.limits === "defaults" ? 500 : 100));
      const seconds = (Date.now() - started) / 1000;
      await session.settle();
      const ensure = await session.usage();
      ctx.log(`${name}: all ingress after ${seconds.toFixed(1)} s; excluding one node`);
      const updateStarted = Date.now();
      await admin.patch(
        NODES,
        nodeName(1),
        { metadata: { labels: { [LABEL_EXCLUDE_FROM_EXTERNAL_LB]: "true" } } },
        { type: "merge" },
      );
      await waitForCalls(running.calls, "UpdateLoadBalancer", c.services, 120_000 + c.services * 200);
      const updateSeconds = (Date.now() - updateStarted) / 1000;
      await session.settle();
      const total = await session.usage();
      ctx.log(`${name}: every load balancer updated after ${updateSeconds.toFixed(1)} s`);
      return {
        manager,
        seconds,
        servicesPerSecond: c.services / seconds,
        ensure,
        updateSeconds,
        update: difference(total, ensure),
      };
    } finally {
      tracker.stop();
    }
  });
}

/** What happened between two readings (CPU, requests and calls); peak RSS is the later reading's. */
export function difference(later: Usage, earlier: Usage): Usage {
  const minus = (a: Record<string, number>, b: Record<string, number>): Record<string, number> =>
    Object.fromEntries(
      Object.entries(a)
        .map(([k, v]) => [k, v - (b[k] ?? 0)] as const)
        .filter(([, v]) => v !== 0),
    );
  return {
    cpuSeconds: later.cpuSeconds - earlier.cpuSeconds,
    peakRssMiB: later.peakRssMiB,
    rss: later.rss.slice(earlier.rss.length),
    requests: {
      total: later.requests.total - earlier.requests.total,
      byVerb: minus(later.requests.byVerb, earlier.requests.byVerb),
      errors: minus(later.requests.errors, earlier.requests.errors),
    },
    cloudCalls: minus(later.cloudCalls, earlier.cloudCalls),
    cloudCallsTotal: later.cloudCallsTotal - earlier.cloudCallsTotal,
  };
}
