/**
 * syncNode's writes against an in-memory API: which requests an initialisation costs, and what happens
 * around them (stale cache, Conflict, a failed address write, no metadata), and which Nodes a sharded
 * address refresh covers. The decisions themselves are in plan.test.ts; the real API server is in
 * test/integration.
 */
import { beforeEach, describe, expect, test } from "bun:test";
import { fakeKubeApi, type FakeKubeApi } from "../../../test/harness/fake-kube-api.ts";
import { kubeletNode } from "../../../test/harness/fixtures.ts";
import type { InstanceLookup } from "../../cloud/instance-lookup.ts";
import type { InstanceMetadata } from "../../cloud/provider.ts";
import { NODES, type KubeApi } from "../../kube/api.ts";
import { shardOf } from "../../kube/shard.ts";
import type { EventRecorder, EventType } from "../../kube/events.ts";
import type { Node } from "../../kube/objects.ts";
import { KubeUnreachableError } from "../../kube/transport.ts";
import { createLogger } from "../../log/logger.ts";
import { createMetrics, type Metrics } from "../../metrics/metrics.ts";
import { realClock } from "../../util/clock.ts";
import { Semaphore } from "../../util/concurrency.ts";
import { MAX_INITIALIZING } from "./controller.ts";
import { runNodeStatusUpdates, updateNodeStatus } from "./status.ts";
import { forgetNode, newInitProgress, nodeSeen, syncNode, updateNeedsSync, type NodeSyncDeps } from "./sync.ts";

const METADATA: InstanceMetadata = {
  providerID: "fake://node-a",
  instanceType: "fake.small",
  zone: "zone-a",
  region: "region-1",
  nodeAddresses: [
    { type: "InternalIP", address: "10.0.0.1" },
    { type: "ExternalIP", address: "203.0.113.1" },
  ],
};

interface Harness {
  readonly api: FakeKubeApi;
  readonly cache: Map<string, Node>;
  readonly events: [EventType, string, string][];
  readonly lookups: string[];
  readonly metrics: Metrics;
  readonly deps: NodeSyncDeps;
  /** Stores the Node in the API and the cache, as kubelet registering it and the watch delivering it. */
  register(node: Node): Node;
  /** The cache catches up with the API server. */
  catchUp(name: string): void;
}

function harness(answer: () => InstanceMetadata | undefined = () => METADATA, watchCatchUpMs = 5): Harness {
  const api = fakeKubeApi();
  const cache = new Map<string, Node>();
  const events: Harness["events"] = [];
  const lookups: string[] = [];
  const metrics = createMetrics();
  const lookup: InstanceLookup = {
    batchSize: 1,
    metadata: (node) => {
      lookups.push(node.metadata.name);
      return Promise.resolve(answer());
    },
    state: () => Promise.reject(new Error("unused")),
  };
  const deps: NodeSyncDeps = {
    api,
    nodes: { get: (name) => cache.get(name), list: () => [...cache.values()], size: 0 },
    lookup,
    recorder: { event: (_obj, type, reason, message) => void events.push([type, reason, message]) },
    metrics,
    logger: createLogger({ verbosity: 0, format: "text", write: () => undefined }),
    clock: realClock,
    progress: newInitProgress(realClock),
    watchCatchUpMs,
    initializing: new Semaphore(MAX_INITIALIZING),
  };
  return {
    api,
    cache,
    events,
    lookups,
    metrics,
    deps,
    register(node) {
      const stored = api.put(NODES, {
        ...node,
        metadata: { ...node.metadata, uid: `uid-${node.metadata.name}`, creationTimestamp: new Date().toISOString() },
      }) as Node;
      cache.set(stored.metadata.name, stored);
      return stored;
    },
    catchUp(name) {
      cache.set(name, api.stored(NODES, name) as Node);
    },
  };
}

const observations = async (m: Metrics["taintRemovalDelay"]): Promise<number> =>
  (await m.get()).values.find((v) => v.metricName?.endsWith("_count"))?.value ?? 0;

describe("syncNode", () => {
  let h: Harness;
  beforeEach(() => {
    h = harness();
  });

  test("initialising costs one cloud question, one Node patch, one status patch and one Synced event", async () => {
    h.register(kubeletNode("node-a", { nodeIP: "10.0.0.1" }));
    await syncNode(h.deps, "node-a");
    expect(h.lookups).toEqual(["node-a"]);
    expect(h.api.requests).toEqual(["PATCH nodes node-a", "PATCH nodes/status node-a"]);
    expect(h.events).toEqual([["Normal", "Synced", "Node synced successfully"]]);
    const stored = h.api.stored(NODES, "node-a") as Node;
    expect(stored.spec?.providerID).toBe("fake://node-a");
    expect(stored.spec?.taints).toEqual([]);
    expect(stored.status?.addresses).toEqual([...METADATA.nodeAddresses, { type: "Hostname", address: "node-a" }]);
    expect(await observations(h.metrics.taintRemovalDelay)).toBe(1);
    expect(await observations(h.metrics.initialNodeSyncDelay)).toBe(1);
  });

  test("a cache that has not seen our write yet costs nothing; once it has, nothing is rewritten", async () => {
    h.register(kubeletNode("node-a"));
    await syncNode(h.deps, "node-a");
    await syncNode(h.deps, "node-a");
    expect(h.lookups).toEqual(["node-a"]);
    expect(h.api.requests).toHaveLength(2);
    h.catchUp("node-a");
    await syncNode(h.deps, "node-a");
    expect(h.lookups).toEqual(["node-a"]);
    expect(h.api.requests).toHaveLength(2);
    expect(h.events).toHaveLength(1);
  });

  test("only the exact version the write was made against counts as stale: a later tainted version is initialised again", async () => {
    const registered = h.register(kubeletNode("node-a"));
    await syncNode(h.deps, "node-a");
    const retainted: Node = { ...(h.api.stored(NODES, "node-a") as Node), spec: registered.spec };
    h.cache.set("node-a", h.api.put(NODES, retainted));
    await syncNode(h.deps, "node-a");
    expect(h.lookups).toEqual(["node-a", "node-a"]);
    expect((h.api.stored(NODES, "node-a") as Node).spec?.taints).toEqual([]);
  });

  test("a Conflict re-reads the Node and rebuilds the patch from it, keeping what changed meanwhile", async () => {
    const cached = h.register(kubeletNode("node-a"));
    h.api.put(NODES, {
      ...cached,
      metadata: { ...cached.metadata, labels: { ...cached.metadata.labels, "example.com/by-kubelet": "yes" } },
    });
    await syncNode(h.deps, "node-a");
    expect(h.api.requests).toEqual([
      "PATCH nodes node-a",
      "GET nodes node-a",
      "PATCH nodes node-a",
      "PATCH nodes/status node-a",
    ]);
    const stored = h.api.stored(NODES, "node-a") as Node;
    expect(stored.metadata.labels?.["example.com/by-kubelet"]).toBe("yes");
    expect(stored.metadata.labels?.["topology.kubernetes.io/zone"]).toBe("zone-a");
  });

  test("a status write meanwhile (a heartbeat, a route condition) costs no Conflict and is kept", async () => {
    const cached = h.register(kubeletNode("node-a"));
    const heartbeat = { type: "Ready", status: "True" as const, lastHeartbeatTime: new Date().toISOString() };
    h.api.put(NODES, { ...cached, status: { ...cached.status, conditions: [heartbeat] } });
    await syncNode(h.deps, "node-a");
    expect(h.api.requests).toEqual(["PATCH nodes node-a", "PATCH nodes/status node-a"]);
    const stored = h.api.stored(NODES, "node-a") as Node;
    expect(stored.status?.conditions).toEqual([heartbeat]);
    expect(stored.spec?.taints).toEqual([]);
    expect(stored.status?.addresses).toHaveLength(3);
  });

  test("addresses that could not be written are written by the next sync, without asking the cloud again", async () => {
    h.register(kubeletNode("node-a"));
    h.api.failNext(/PATCH nodes\/status/, new KubeUnreachableError("cannot reach the API server"));
    expect(await syncNode(h.deps, "node-a").catch((e: unknown) => e)).toBeInstanceOf(KubeUnreachableError);
    expect(h.events).toEqual([]);
    h.catchUp("node-a");
    await syncNode(h.deps, "node-a");
    expect(h.lookups).toEqual(["node-a"]);
    expect(h.api.requests).toEqual(["PATCH nodes node-a", "PATCH nodes/status node-a", "PATCH nodes/status node-a"]);
    expect((h.api.stored(NODES, "node-a") as Node).status?.addresses).toHaveLength(3);
    expect(h.events).toEqual([["Normal", "Synced", "Node synced successfully"]]);
  });

  test("a refused initialisation throws and writes nothing", async () => {
    h.register(kubeletNode("node-a", { nodeIP: "10.0.0.99" }));
    expect(String(await syncNode(h.deps, "node-a").catch((e: unknown) => e))).toMatch(
      /provided node ip for node "node-a" is not valid/,
    );
    expect(h.api.requests).toEqual([]);
    expect(h.events).toEqual([]);
  });

  test("no metadata from the cloud leaves the Node alone, without an error", async () => {
    h = harness(() => undefined);
    h.register(kubeletNode("node-a"));
    await syncNode(h.deps, "node-a");
    expect(h.lookups).toEqual(["node-a"]);
    expect(h.api.requests).toEqual([]);
  });

  test("the addresses wait until the watch shows the Node patch, then go out at once", async () => {
    h = harness(() => METADATA, 60_000);
    h.register(kubeletNode("node-a"));
    const sync = syncNode(h.deps, "node-a");
    while (h.api.requests.length === 0) await Bun.sleep(1);
    await Bun.sleep(20);
    expect(h.api.requests).toEqual(["PATCH nodes node-a"]);
    h.catchUp("node-a");
    nodeSeen(h.deps.progress, h.cache.get("node-a") as Node);
    await sync;
    expect(h.api.requests).toEqual(["PATCH nodes node-a", "PATCH nodes/status node-a"]);
    expect(h.deps.progress.awaited.size).toBe(0);
  });

  test("without the watch event the addresses go out after the catch-up time; a deleted Node ends the wait", async () => {
    h = harness(() => METADATA, 50);
    h.register(kubeletNode("node-a"));
    const started = performance.now();
    await syncNode(h.deps, "node-a");
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
    expect(h.api.requests).toEqual(["PATCH nodes node-a", "PATCH nodes/status node-a"]);

    h = harness(() => METADATA, 60_000);
    const b = h.register(kubeletNode("node-b"));
    const sync = syncNode(h.deps, "node-b").catch((e: unknown) => e);
    while (h.deps.progress.awaited.size === 0) await Bun.sleep(1);
    forgetNode(h.deps.progress, b);
    await sync;
    expect(h.deps.progress.awaited.size).toBe(0);
  });

  test("at most `initializing` Nodes are past their cloud lookup and writing at once; every one is initialised", async () => {
    const names = Array.from({ length: 6 }, (_, i) => `node-${i}`);
    for (const name of names) h.register(kubeletNode(name));
    const writing = new Set<string>();
    let most = 0;
    const api = {
      ...h.api,
      patchVersion: async (...args: Parameters<KubeApi["patchVersion"]>): Promise<string> => {
        writing.add(args[1]);
        most = Math.max(most, writing.size);
        await Bun.sleep(2);
        return h.api.patchVersion(...args);
      },
    };
    const recorder: EventRecorder = {
      event: (obj, type, reason, message) => {
        writing.delete(obj.metadata.name);
        h.events.push([type, reason, message]);
      },
    };
    const deps = { ...h.deps, api, recorder, initializing: new Semaphore(2) };
    await Promise.all(names.map((name) => syncNode(deps, name)));
    expect(most).toBe(2);
    expect(h.lookups.sort()).toEqual([...names].sort());
    expect(h.events).toHaveLength(names.length);
    for (const name of names) expect((h.api.stored(NODES, name) as Node).spec?.taints).toEqual([]);
  });

  test("an initialisation waiting for its turn writes from the Node as cached then, or not at all once it is gone", async () => {
    const turn = new Semaphore(1);
    let release = (): void => undefined;
    const held = turn.run(() => new Promise<void>((resolve) => (release = resolve)));
    const deps = { ...h.deps, initializing: turn };
    const a = h.register(kubeletNode("node-a"));
    h.register(kubeletNode("node-b"));
    const syncs = [syncNode(deps, "node-a"), syncNode(deps, "node-b")];
    while (h.lookups.length < 2) await Bun.sleep(1);
    const labels = { ...a.metadata.labels, "example.com/added": "meanwhile" };
    h.cache.set("node-a", h.api.put(NODES, { ...a, metadata: { ...a.metadata, labels } }));
    h.cache.delete("node-b");
    release();
    await Promise.all([held, ...syncs]);
    expect(h.api.requests).toEqual(["PATCH nodes node-a", "PATCH nodes/status node-a"]);
    const stored = h.api.stored(NODES, "node-a") as Node;
    expect(stored.metadata.labels?.["example.com/added"]).toBe("meanwhile");
    expect(stored.spec?.taints).toEqual([]);
  });

  test("a Node gone from the cache, or deleted while syncing, is done", async () => {
    await syncNode(h.deps, "missing");
    const stored = h.register(kubeletNode("node-a"));
    await h.api.delete(NODES, "node-a");
    h.cache.set("node-a", stored);
    await syncNode(h.deps, "node-a");
    expect(h.events).toEqual([]);
  });
});

describe("updateNodeStatus over shards", () => {
  test("each thread refreshes the addresses of its own Nodes, every initialised one once; its tainted ones queued again", async () => {
    const h = harness();
    const names = Array.from({ length: 10 }, (_, i) => `node-${i}`);
    for (const name of names) h.register(kubeletNode(name, { uninitialized: false }));
    h.register(kubeletNode("initialising"));
    const perThread: string[][] = [];
    for (const index of [0, 1]) {
      h.lookups.length = 0;
      const retried: string[] = [];
      const retryInitialization = (name: string): number => retried.push(name);
      await updateNodeStatus({ ...h.deps, periodMs: 1, workers: 1, shard: { index, count: 2 }, retryInitialization });
      expect(retried).toEqual(shardOf("initialising", 2) === index ? ["initialising"] : []);
      perThread.push([...h.lookups]);
      for (const name of h.lookups) expect(shardOf(name, 2)).toBe(index);
    }
    expect(perThread.flat().sort()).toEqual([...names].sort());
    expect(perThread.every((asked) => asked.length > 0)).toBe(true);
  });
});

describe("runNodeStatusUpdates", () => {
  test("a tainted Node is queued again from the second pass on (the first comes as the add handler queues it)", async () => {
    const h = harness();
    h.register(kubeletNode("ready", { uninitialized: false }));
    h.register(kubeletNode("initialising"));
    const stop = new AbortController();
    const retried: string[] = [];
    const retryInitialization = (name: string): void => {
      retried.push(`${name}, after the lookups of ${h.lookups.join(" ")}`);
      stop.abort();
    };
    const shard = { index: 0, count: 1 };
    await runNodeStatusUpdates({ ...h.deps, periodMs: 1, workers: 1, shard, retryInitialization }, stop.signal);
    expect(retried).toEqual(["initialising, after the lookups of ready"]);
  });
});

describe("updateNeedsSync: which Node updates reach the queue", () => {
  const initialised = (): Node => kubeletNode("a", { nodeIP: "10.0.0.1", uninitialized: false });
  test.each([
    { name: "a status heartbeat of an initialised Node", node: initialised, unfinished: false, want: false },
    { name: "a Node still tainted uninitialized", node: () => kubeletNode("a"), unfinished: false, want: true },
    { name: "initialised, addresses still to write", node: initialised, unfinished: true, want: true },
    {
      name: "a beta label whose GA twin differs",
      node: (): Node => {
        const n = initialised();
        n.metadata.labels = { "beta.kubernetes.io/instance-type": "m5.large" };
        return n;
      },
      unfinished: false,
      want: true,
    },
  ])("$name → $want", ({ node, unfinished, want }) => {
    const progress = newInitProgress(realClock);
    const n = node();
    if (unfinished)
      progress.unfinished.set(n.metadata.uid ?? n.metadata.name, {
        providerID: "fake://a",
        instanceType: "",
        nodeAddresses: [],
        zone: "",
        region: "",
      });
    expect(updateNeedsSync(progress, n)).toBe(want);
  });
});
