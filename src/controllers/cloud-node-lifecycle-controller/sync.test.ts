/**
 * monitorNodes over several passes against an in-memory API and a hand-driven clock: which Nodes cost a
 * cloud question, when a deletion happens and what it sends. Decisions are table-tested in plan.test.ts.
 */
import { beforeEach, describe, expect, test } from "bun:test";
import { fakeKubeApi, type FakeKubeApi } from "../../../test/harness/fake-kube-api.ts";
import { kubeletNode, type KubeletNodeOptions } from "../../../test/harness/fixtures.ts";
import type { InstanceLookup } from "../../cloud/instance-lookup.ts";
import type { InstanceState } from "../../cloud/provider.ts";
import { NODES } from "../../kube/api.ts";
import { shardOf } from "../../kube/shard.ts";
import type { Node, Taint } from "../../kube/objects.ts";
import { TAINT_SHUTDOWN } from "../../kube/well-known.ts";
import { createLogger } from "../../log/logger.ts";
import { monitorNodes, type LifecycleDeps } from "./sync.ts";

const PERIOD = 5000;
type Cloud = Record<string, InstanceState | Error>;

interface Harness {
  readonly api: FakeKubeApi;
  readonly cache: Map<string, Node>;
  readonly asked: string[];
  readonly events: string[];
  readonly deps: LifecycleDeps;
  /** What the cloud answers per node name. */
  cloud: Cloud;
  /** The clock the controller reads. */
  now: number;
  register(name: string, o?: KubeletNodeOptions & { taints?: Taint[] }): void;
}

function harness(confirm = true): Harness {
  const api = fakeKubeApi();
  const cache = new Map<string, Node>();
  const asked: string[] = [];
  const events: string[] = [];
  const state = { cloud: {} as Cloud, now: 0 };
  const lookup: InstanceLookup = {
    batchSize: 10,
    metadata: () => Promise.reject(new Error("unused")),
    state: (node) => {
      asked.push(node.metadata.name);
      const answer = state.cloud[node.metadata.name] ?? new Error(`no answer configured for ${node.metadata.name}`);
      return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
    },
  };
  const deps: LifecycleDeps = {
    api,
    nodes: { get: (name) => cache.get(name), list: () => [...cache.values()], size: 0 },
    lookup,
    recorder: { event: (_obj, type, reason, message) => void events.push(`${type} ${reason} ${message}`) },
    logger: createLogger({ verbosity: 0, format: "text", write: () => undefined }),
    clock: { now: () => state.now, sleep: () => Promise.resolve() },
    policy: { confirm, periodMs: PERIOD },
    missingSince: new Map(),
  };
  return Object.assign(state, {
    api,
    cache,
    asked,
    events,
    deps,
    register(name: string, o: KubeletNodeOptions & { taints?: Taint[] } = {}) {
      const node = kubeletNode(name, { uninitialized: false, ...o });
      if (o.taints) node.spec = { ...node.spec, taints: o.taints };
      cache.set(name, api.put(NODES, { ...node, metadata: { ...node.metadata, uid: `uid-${name}` } }));
    },
  });
}

const GONE: InstanceState = { exists: false };
const RUNNING: InstanceState = { exists: true, shutdown: false };

describe("monitorNodes", () => {
  let h: Harness;
  beforeEach(() => {
    h = harness();
  });

  test("only NotReady / Unknown Nodes cost a cloud question", async () => {
    h.register("ready", { ready: true });
    h.register("not-ready", { ready: false });
    h.register("unknown");
    h.cloud = { "not-ready": RUNNING, unknown: RUNNING };
    await monitorNodes(h.deps);
    expect(h.asked.sort()).toEqual(["not-ready", "unknown"]);
    expect(h.api.requests).toEqual([]);
  });

  test("sharded over two threads, each pass asks about its own Nodes only; together they ask about each once", async () => {
    const names = Array.from({ length: 12 }, (_, i) => `node-${i}`);
    for (const name of names) h.register(name, { ready: false });
    h.cloud = Object.fromEntries(names.map((name) => [name, RUNNING]));
    const perThread: string[][] = [];
    for (const index of [0, 1]) {
      h.asked.length = 0;
      await monitorNodes({ ...h.deps, shard: { index, count: 2 } });
      perThread.push([...h.asked]);
      for (const name of h.asked) expect(shardOf(name, 2)).toBe(index);
    }
    expect(perThread.flat().sort()).toEqual([...names].sort());
    expect(perThread.every((asked) => asked.length > 0)).toBe(true);
  });

  test("deletes only when a second 'does not exist' comes a full period after the first, with UID precondition and event", async () => {
    h.register("node-a", { ready: false });
    h.cloud = { "node-a": GONE };
    for (const at of [0, PERIOD - 1]) {
      h.now = at;
      await monitorNodes(h.deps);
      expect(h.api.requests).toEqual([]);
    }
    h.now = PERIOD;
    await monitorNodes(h.deps);
    expect(h.api.requests).toEqual(["DELETE nodes node-a (uid uid-node-a)"]);
    expect(h.api.stored(NODES, "node-a")).toBeUndefined();
    expect(h.events).toEqual([
      "Normal DeletingNode Deleting node node-a because it does not exist in the cloud provider",
    ]);
  });

  test("an error in between starts the confirmation over", async () => {
    h.register("node-a", { ready: false });
    const answers: [number, InstanceState | Error][] = [
      [0, GONE],
      [PERIOD, new Error("RequestLimitExceeded")],
      [2 * PERIOD, GONE],
      [3 * PERIOD - 1, GONE],
    ];
    for (const [at, answer] of answers) {
      h.now = at;
      h.cloud = { "node-a": answer };
      await monitorNodes(h.deps);
    }
    expect(h.api.requests).toEqual([]);
    h.now = 3 * PERIOD;
    await monitorNodes(h.deps);
    expect(h.api.requests).toEqual(["DELETE nodes node-a (uid uid-node-a)"]);
  });

  test("without confirmation the first definite answer deletes (upstream)", async () => {
    h = harness(false);
    h.register("node-a", { ready: false });
    h.cloud = { "node-a": GONE };
    await monitorNodes(h.deps);
    expect(h.api.requests).toEqual(["DELETE nodes node-a (uid uid-node-a)"]);
  });

  test("a Node that became Ready, or was replaced, before the delete is kept", async () => {
    h = harness(false);
    h.register("node-a", { ready: false });
    h.cloud = { "node-a": GONE };
    const stale = h.cache.get("node-a") as Node;
    h.deps.nodes.list = () => [stale];
    h.register("node-a", { ready: true });
    await monitorNodes(h.deps);
    expect(h.api.requests).toEqual([]);
  });

  test("a failed delete is reported with a DeletingNodeFailed event", async () => {
    h = harness(false);
    h.register("node-a", { ready: false });
    h.cloud = { "node-a": GONE };
    h.api.failNext(/DELETE/, new Error("etcdserver: request timed out"));
    await monitorNodes(h.deps);
    expect(h.events).toEqual([
      "Normal DeletingNode Deleting node node-a because it does not exist in the cloud provider",
      "Warning DeletingNodeFailed Failed deleting node node-a: etcdserver: request timed out",
    ]);
  });

  test("shutdown taint: added to a shut-down NotReady Node, removed once the Node is Ready", async () => {
    h.register("node-a", { ready: false });
    h.cloud = { "node-a": { exists: true, shutdown: true } };
    await monitorNodes(h.deps);
    expect(h.api.requests).toEqual(["PATCH nodes node-a"]);
    expect((h.api.stored(NODES, "node-a") as Node).spec?.taints).toEqual([
      { key: TAINT_SHUTDOWN, effect: "NoSchedule" },
    ]);

    h.register("node-a", { ready: true, taints: [{ key: TAINT_SHUTDOWN, effect: "NoSchedule" }] });
    h.api.requests.length = 0;
    await monitorNodes(h.deps);
    expect(h.api.requests).toEqual(["PATCH nodes node-a"]);
    expect((h.api.stored(NODES, "node-a") as Node).spec?.taints).toEqual([]);
  });
});
