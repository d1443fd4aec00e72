/**
 * The ceiling: the writes that initialise a Node (one Node patch, then one status patch, and alongside
 * them one Event), issued by a minimal client straight to the API server as the managers' user,
 * unthrottled and at high concurrency, with no cache, no cloud and no decisions. What this machine's API server and
 * etcd can absorb; the
 * managers' figures read as a fraction of it.
 */
import { EVENTS, NODES } from "../../../src/kube/api.ts";
import type { Node } from "../../../src/kube/objects.ts";
import { forEachLimited } from "../../../src/util/concurrency.ts";
import { createKubeApi, type KubeApi } from "../../../src/kube/api.ts";
import { resolveConnection } from "../../../src/kube/kubeconfig.ts";
import { TokenBucket } from "../../../src/kube/token-bucket.ts";
import { createTransport } from "../../../src/kube/transport.ts";
import { createAll, track } from "../load.ts";
import { cloudAddresses, initialisedNode, isInitialised, nodeName, registeredNode } from "../objects.ts";
import { withSession, type BenchContext } from "../run.ts";
import { countRequests } from "../audit.ts";
import { rfc3339 } from "../../../src/util/clock.ts";

export interface CeilingCase {
  readonly nodes: number;
  readonly concurrency: number;
}

export interface CeilingResult {
  readonly seconds: number;
  readonly nodesPerSecond: number;
  readonly requests: number;
  readonly requestsPerSecond: number;
}

function syncedEvent(i: number, now: string): object {
  const name = nodeName(i);
  return {
    apiVersion: "v1",
    kind: "Event",
    metadata: { name: `${name}.ceiling`, namespace: "default" },
    involvedObject: { apiVersion: "v1", kind: "Node", name },
    reason: "Synced",
    message: "Node synced successfully",
    type: "Normal",
    source: { component: "cloud-node-controller" },
    firstTimestamp: now,
    lastTimestamp: now,
    count: 1,
  };
}

/** Unthrottled, with as many requests on the wire as lanes. */
async function minimalClient(kubeconfig: string, lanes: number): Promise<KubeApi> {
  const connection = await resolveConnection({ kubeconfig, master: "" });
  return createKubeApi(
    createTransport({
      connection,
      limiter: TokenBucket.create(0, 0),
      userAgent: "bench-ceiling",
      maxInFlight: lanes * 2,
    }),
  );
}

export async function runCeiling(ctx: BenchContext, c: CeilingCase): Promise<CeilingResult> {
  ctx.log(`ceiling-${c.nodes}: registering ${c.nodes} nodes`);
  return withSession(ctx, `ceiling-${c.nodes}`, async (session) => {
    const admin = session.cp.admin;
    await createAll(
      admin,
      NODES,
      Array.from({ length: c.nodes }, (_, k) => registeredNode(k + 1)),
    );
    const tracker = await track<Node>(admin, NODES, isInitialised);
    const client = await minimalClient(session.cp.kubeconfigs.ccm, c.concurrency);
    try {
      const offset = (await Bun.file(session.cp.auditLog).exists()) ? Bun.file(session.cp.auditLog).size : 0;
      const started = Date.now();
      const now = rfc3339(Date.now());
      await forEachLimited(
        Array.from({ length: c.nodes }, (_, k) => k + 1),
        c.concurrency,
        async (i) => {
          const target = initialisedNode(i);
          const initialise = async (): Promise<void> => {
            await client.patch(
              NODES,
              nodeName(i),
              { metadata: { labels: target.metadata.labels }, spec: target.spec },
              { type: "merge" },
            );
            await client.patch(
              NODES,
              nodeName(i),
              { status: { addresses: cloudAddresses(i) } },
              { subresource: "status", type: "merge" },
            );
          };
          await Promise.all([initialise(), client.create(EVENTS, syncedEvent(i, now), { namespace: "default" })]);
        },
      );
      await tracker.waitFor(c.nodes, 60_000);
      const seconds = (Date.now() - started) / 1000;
      await session.settle(1000);
      const requests = countRequests(session.cp.auditLog, offset).total;
      ctx.log(`ceiling-${c.nodes}: ${seconds.toFixed(1)} s (${(c.nodes / seconds).toFixed(0)} nodes/s)`);
      return { seconds, nodesPerSecond: c.nodes / seconds, requests, requestsPerSecond: requests / seconds };
    } finally {
      tracker.stop();
    }
  });
}
