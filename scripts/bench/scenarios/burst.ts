/**
 * Nodes for the steady-state cluster and the burst on top of it. The burst registers new Nodes at once
 * (as kubelets joining: uninitialized taint, live when the cluster is) while the manager runs on the
 * live cluster, and times them from the first create until every one is initialised. A burst on an empty
 * cluster (a steady case of 0 Nodes) is the reference the live cluster's burst is read against.
 */
import { LEASES, NODES, type KubeApi } from "../../../src/kube/api.ts";
import type { Node } from "../../../src/kube/objects.ts";
import { forEachLimited } from "../../../src/util/concurrency.ts";
import { heartbeatPatch, lastHeartbeat, type LiveNodes } from "../kwok.ts";
import { createAll, track } from "../load.ts";
import { LABEL_BURST, initialisedNode, isInitialised, nodeName, registeredNode, withOptions } from "../objects.ts";
import type { Session } from "../run.ts";
import { downsample, type Timeline } from "../timeline.ts";
import { difference } from "./load-balancers.ts";

export interface NodeSet {
  /** bench-node-<first> … bench-node-<first + count - 1>. */
  readonly first: number;
  readonly count: number;
  /** Initialised already (the steady cluster) or as kubelet registers them (the burst). */
  readonly initialised?: boolean;
  readonly live?: LiveNodes;
  readonly routes?: boolean;
  readonly labels?: Readonly<Record<string, string>>;
}

export interface BurstResult {
  readonly nodes: number;
  /** From the first create until every new Node was initialised. */
  readonly seconds: number;
  readonly nodesPerSecond: number;
  /** How long creating them took (the API server's share of the burst). */
  readonly createSeconds: number;
  readonly cpuSeconds: number;
  readonly requests: number;
  readonly timeline: Timeline;
}

/**
 * Nodes `from` … `to - 1` (positions in the set) of a set; live ones with heartbeat times spread over one
 * period across the whole set (a burst's Nodes have just registered: now).
 */
export function nodesOf(set: NodeSet, from: number, to: number, now = Date.now()): Node[] {
  return Array.from({ length: to - from }, (_, j) => {
    const k = from + j;
    const i = set.first + k;
    const node = set.initialised ? initialisedNode(i) : registeredNode(i);
    const beat = set.live ? heartbeatOf(set, set.live, k, now) : undefined;
    return withOptions(node, i, { lastHeartbeat: beat, podCIDR: set.routes, labels: set.labels });
  });
}

/** The last heartbeat of the Node at position `k`: spread over one period in an initialised set, else now. */
function heartbeatOf(set: NodeSet, live: LiveNodes, k: number, now: number): string {
  return lastHeartbeat(set.initialised ? k : 0, set.count, live.heartbeatSeconds, now);
}

/**
 * Creates the set in slices, so that 100,000 Nodes are never all in memory as objects at once. With
 * `kwok` (a client writing as kwok's field manager) live Nodes are created with the heartbeat before
 * their last and then post their last one as kwok: a kubelet that has run a while owns its status fields
 * already, so its next heartbeat changes only times, where kwok's first would add its managed fields.
 */
export async function createNodes(admin: KubeApi, set: NodeSet, kwok?: KubeApi): Promise<void> {
  const slice = 5000;
  const now = Date.now();
  const period = kwok && set.live ? set.live.heartbeatSeconds * 1000 : 0;
  for (let k = 0; k < set.count; k += slice) {
    const to = Math.min(set.count, k + slice);
    await createAll(admin, NODES, nodesOf(set, k, to, now - period), 64);
    if (kwok && set.live) await postHeartbeats(kwok, set, set.live, { from: k, to, now });
  }
}

/** Nodes `from` … `to - 1` of a live set post the heartbeat `nodesOf` gives them at `now`. */
async function postHeartbeats(
  kwok: KubeApi,
  set: NodeSet,
  live: LiveNodes,
  at: { from: number; to: number; now: number },
): Promise<void> {
  const positions = Array.from({ length: at.to - at.from }, (_, j) => at.from + j);
  await forEachLimited(positions, 64, async (k) => {
    const time = heartbeatOf(set, live, k, at.now);
    const target = { subresource: "status", type: "strategic" } as const;
    await kwok.patch(NODES, nodeName(set.first + k), heartbeatPatch(time), target);
  });
}

/** Waits until kwok has created a Lease for every Node (one list of one item: its remaining count). */
export async function waitForLeases(admin: KubeApi, count: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const page = await admin.list(LEASES, { namespace: "kube-node-lease", limit: 1 });
    const meta = page.metadata as { remainingItemCount?: number };
    const leases = page.items.length + (meta.remainingItemCount ?? 0);
    if (leases >= count) return;
    if (Date.now() > deadline)
      throw new Error(`kwok created ${leases} of ${count} node leases in ${timeoutMs / 1000} s`);
    await Bun.sleep(1000);
  }
}

let bursts = 0;

export async function runBurst(session: Session, set: NodeSet): Promise<BurstResult> {
  bursts += 1;
  const label = { [LABEL_BURST]: String(bursts) };
  const admin = session.cp.admin;
  const tracker = await track<Node>(admin, NODES, isInitialised, { labelSelector: `${LABEL_BURST}=${bursts}` });
  try {
    const before = await session.usage();
    const started = Date.now();
    tracker.restart();
    await createNodes(admin, { ...set, initialised: false, labels: label });
    const createSeconds = (Date.now() - started) / 1000;
    await tracker.waitFor(set.count, 120_000 + set.count * 100);
    const seconds = (Date.now() - started) / 1000;
    await session.settle(2000, 30_000);
    const used = difference(await session.usage(), before);
    const timeline = downsample(tracker.timeline, 200);
    const result = { nodes: set.count, seconds, nodesPerSecond: set.count / seconds, createSeconds };
    return { ...result, cpuSeconds: used.cpuSeconds, requests: used.requests.total, timeline };
  } finally {
    tracker.stop();
  }
}
