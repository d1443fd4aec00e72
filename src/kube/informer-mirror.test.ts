import { describe, expect, test } from "bun:test";
import { createLogger } from "../log/logger.ts";
import { InformerCache, type EventHandler } from "./informer-cache.ts";
import {
  changeOf,
  createMirrorInformers,
  encodeBatches,
  forwardInformers,
  opsFor,
  type Forwarded,
  type MirrorOp,
} from "./informer-mirror.ts";
import type { CachedResource, SharedInformers } from "./informers.ts";
import type { KubeObject, Node, Service } from "./objects.ts";

const quiet = createLogger({ verbosity: 0, format: "text", write: () => undefined });

const node = (name: string, resourceVersion = "1", labels?: Record<string, string>): Node => ({
  metadata: { name, resourceVersion, ...(labels ? { labels } : {}) },
});
const service = (name: string, resourceVersion = "1"): Service => ({
  metadata: { name, namespace: "default", resourceVersion },
});

/** The main thread's side: real caches, filled by hand as an informer's list and watch would. */
function mainInformers(): SharedInformers & { nodeCache: InformerCache<Node>; serviceCache: InformerCache<Service> } {
  const nodeCache = new InformerCache<Node>("nodes", quiet);
  const serviceCache = new InformerCache<Service>("services", quiet);
  return {
    nodeCache,
    serviceCache,
    nodes: () => nodeCache,
    services: () => serviceCache,
    run: () => Promise.resolve(),
    waitForSync: () => Promise.resolve(true),
    synced: true,
    describe: () => "",
  };
}

/** Every handler call, as `add a`, `update a 1→2`, `delete a`. */
function recorder<T extends KubeObject>(seen: string[]): EventHandler<T> {
  const rv = (o: T): string => o.metadata.resourceVersion ?? "";
  return {
    add: (o) => seen.push(`add ${o.metadata.name}`),
    update: (old, o) => seen.push(`update ${o.metadata.name} ${rv(old)}→${rv(o)}`),
    delete: (o) => seen.push(`delete ${o.metadata.name} ${rv(o)}`),
  };
}

/** Main informers forwarding to one mirror; batches go out on `flush()`, as at the end of a turn. */
function wired(): {
  main: ReturnType<typeof mainInformers>;
  mirror: ReturnType<typeof createMirrorInformers>;
  watched: CachedResource[][];
  batches: MirrorOp[][];
  flush: () => Promise<void>;
  /** The pending newer resourceVersions go out (their interval has passed). */
  advance: () => void;
  close: () => void;
} {
  const main = mainInformers();
  const watched: CachedResource[][] = [];
  const batches: MirrorOp[][] = [];
  const pending: (() => void)[] = [];
  const advancing: (() => void)[] = [];
  const stop = new AbortController();
  const mirror = createMirrorInformers({ logger: quiet, watch: (r) => void watched.push([...r]) });
  const forwarder = forwardInformers({
    informers: main,
    // Through JSON, as between threads, to a thread that takes every key.
    send: (batch) => {
      batches.push(JSON.parse(encodeBatches(batch, [() => true])[0] || "[]") as MirrorOp[]);
      mirror.apply(batches.at(-1) ?? []);
    },
    schedule: (flush) => void pending.push(flush),
    scheduleAdvance: (flush) => void advancing.push(flush),
  });
  forwarder.watch(["nodes", "services"], stop.signal);
  const flush = async (): Promise<void> => {
    // The sync marker follows the listing a few promise hops later, within the same turn.
    await Bun.sleep(0);
    for (const f of pending.splice(0)) f();
  };
  const advance = (): void => {
    for (const f of advancing.splice(0)) f();
  };
  return { main, mirror, watched, batches, flush, advance, close: () => forwarder.close() };
}

describe("informer mirror", () => {
  test("handlers see the same events, in the same order, as the main thread's", async () => {
    const { main, mirror, flush } = wired();
    const onMain: string[] = [];
    const onMirror: string[] = [];
    main.nodeCache.addHandler(recorder(onMain));
    mirror.nodes().addHandler(recorder(onMirror));
    main.nodeCache.upsert(node("a"));
    main.nodeCache.upsert(node("b"));
    main.nodeCache.upsert(node("a", "2", { zone: "z1" }));
    main.nodeCache.remove(node("b"));
    expect(onMirror).toEqual([]);
    await flush();
    expect(onMain).toEqual(["add a", "add b", "update a 1→2", "delete b 1"]);
    expect(onMirror).toEqual(onMain);
    expect(mirror.nodes().list()).toEqual([node("a", "2", { zone: "z1" })]);
    expect(mirror.nodes().get("a")).toEqual(node("a", "2", { zone: "z1" }));
    expect(mirror.nodes().size).toBe(1);
  });

  test("one batch per turn, changes of both resources in order", async () => {
    const { main, batches, flush } = wired();
    main.nodeCache.upsert(node("a"));
    main.serviceCache.upsert(service("web"));
    main.nodeCache.remove(node("a"));
    await flush();
    expect(batches.map((b) => b.map((op) => `${op[0]} ${op[1]}`))).toEqual([
      ["nodes set", "services set", "nodes delete"],
    ]);
  });

  test("synced only when the main thread says so, after the listing it covers", async () => {
    const { main, mirror, flush } = wired();
    const nodes = mirror.nodes();
    mirror.services();
    const waiting = mirror.waitForSync(new AbortController().signal);
    main.nodeCache.replace(new Map([["a", node("a")]]));
    main.nodeCache.markSynced();
    await flush();
    expect(nodes.synced).toBe(true);
    expect(mirror.synced).toBe(false);
    main.serviceCache.markSynced();
    await flush();
    expect(mirror.synced).toBe(true);
    expect(await waiting).toBe(true);
    expect(mirror.describe()).toBe("1 node(s), 0 service(s)");
  });

  test("waitForSync resolves false when stopped first", async () => {
    const { mirror } = wired();
    mirror.nodes();
    const stop = new AbortController();
    const waiting = mirror.waitForSync(stop.signal);
    stop.abort();
    expect(await waiting).toBe(false);
  });

  test("a delete of an object the mirror never saw still reaches its handlers", async () => {
    const { mirror } = wired();
    const seen: string[] = [];
    mirror.services().addHandler(recorder(seen));
    mirror.apply([["services", "delete", service("gone", "7")]]);
    expect(seen).toEqual(["delete gone 7"]);
  });

  test("a relist: what vanished is deleted, what is new added, what moved updated", async () => {
    const { main, mirror, flush } = wired();
    main.nodeCache.replace(new Map(["a", "b", "c"].map((n) => [n, node(n)])));
    await flush();
    const seen: string[] = [];
    mirror.nodes().addHandler(recorder(seen));
    seen.length = 0;
    main.nodeCache.replace(
      new Map([
        ["a", node("a")],
        ["c", node("c", "2", { zone: "z1" })],
        ["d", node("d")],
      ]),
    );
    await flush();
    expect(seen).toEqual(["delete b 1", "update c 1→2", "add d"]);
    expect(
      mirror
        .nodes()
        .list()
        .map((n) => n.metadata.name),
    ).toEqual(["a", "c", "d"]);
  });

  test("a change of nothing but the resourceVersion: no handler call, the newer version at the interval", async () => {
    const { main, mirror, batches, flush, advance } = wired();
    main.nodeCache.upsert(node("a"));
    main.nodeCache.upsert(node("b"));
    await flush();
    const seen: string[] = [];
    mirror.nodes().addHandler(recorder(seen));
    seen.length = 0;
    main.nodeCache.upsert(node("a", "2"));
    main.nodeCache.upsert(node("a", "3"));
    main.nodeCache.upsert(node("b", "4"));
    // b changes for real after its heartbeat: the change carries the newer version, the advance drops it.
    main.nodeCache.upsert(node("b", "5", { zone: "z1" }));
    await flush();
    expect(seen).toEqual(["update b 1→5"]);
    expect(mirror.nodes().get("a")?.metadata.resourceVersion).toBe("1");
    advance();
    await flush();
    expect(batches.at(-1)).toEqual([["nodes", "advance", [["a", "3"]]]]);
    expect(seen).toEqual(["update b 1→5"]);
    expect(mirror.nodes().get("a")).toEqual(node("a", "3"));
    expect(mirror.nodes().get("b")).toEqual(node("b", "5", { zone: "z1" }));
  });

  test("changeOf: deep, a key set to undefined counts as absent", () => {
    const a: Node = {
      metadata: { name: "a", resourceVersion: "1" },
      spec: { taints: [{ key: "k", effect: "NoSchedule" }] },
    };
    expect(changeOf(a, { ...a, metadata: { name: "a", resourceVersion: "2" } })).toBe("version");
    expect(changeOf(a, { ...a, spec: { ...a.spec, providerID: undefined } })).toBe("version");
    expect(changeOf(a, { ...a, spec: { taints: [{ key: "k", effect: "NoExecute" }] } })).toBe("object");
    expect(changeOf(a, { ...a, spec: { taints: [] } })).toBe("object");
    expect(changeOf(a, { ...a, metadata: { ...a.metadata, labels: {} } })).toBe("object");
  });

  test.each<{ what: string; b: Node; want: ReturnType<typeof changeOf> }>([
    { what: "the resourceVersion alone", b: { metadata: { name: "a", resourceVersion: "2" } }, want: "version" },
    {
      what: "the status",
      b: { metadata: { name: "a", resourceVersion: "2" }, status: { addresses: [] } },
      want: "status",
    },
    { what: "a label", b: { metadata: { name: "a", resourceVersion: "1", labels: { x: "y" } } }, want: "object" },
    {
      what: "the spec",
      b: { metadata: { name: "a", resourceVersion: "2" }, spec: { providerID: "p" } },
      want: "object",
    },
  ])("changeOf: $what → $want", ({ b, want }) => {
    expect(changeOf<Node>({ metadata: { name: "a", resourceVersion: "1" } }, b)).toBe(want);
  });

  test("a Node's status alone goes to the thread that owns it; other changes and Services to every thread", () => {
    const a: Node = { metadata: { name: "a", resourceVersion: "2" }, status: { addresses: [] } };
    const batch: Forwarded[] = [
      { op: ["nodes", "set", node("b", "3", { zone: "z" })] },
      { op: ["nodes", "set", a], owner: "a" },
      { op: ["services", "set", service("web")] },
      {
        op: [
          "nodes",
          "advance",
          [
            ["a", "4"],
            ["b", "5"],
          ],
        ],
        byKey: true,
      },
      { op: ["services", "advance", [["default/web", "6"]]] },
    ];
    const owner = (key: string): boolean => key === "a";
    const other = (key: string): boolean => key === "b";
    expect(opsFor(batch, owner)).toEqual(batch.map((f) => (f.byKey ? ["nodes", "advance", [["a", "4"]]] : f.op)));
    expect(opsFor(batch, other)).toEqual([
      ["nodes", "set", node("b", "3", { zone: "z" })],
      ["services", "set", service("web")],
      ["nodes", "advance", [["b", "5"]]],
      ["services", "advance", [["default/web", "6"]]],
    ]);
    const encoded = encodeBatches(batch, [owner, other, () => false]);
    expect(encoded.slice(0, 2).map((e) => JSON.parse(e) as unknown)).toEqual([
      opsFor(batch, owner),
      opsFor(batch, other),
    ]);
    expect(JSON.parse(encoded[2] ?? "")).toEqual(opsFor(batch, () => false));
    expect(encodeBatches([{ op: ["nodes", "set", a], owner: "a" }], [other])).toEqual([""]);
  });

  test("the forwarder marks a Node's status change for its owner alone, a Service's for every thread", async () => {
    const main = mainInformers();
    const sent: Forwarded[][] = [];
    const pending: (() => void)[] = [];
    const forwarder = forwardInformers({
      informers: main,
      send: (batch) => void sent.push([...batch]),
      schedule: (flush) => void pending.push(flush),
      scheduleAdvance: () => undefined,
    });
    forwarder.watch(["nodes", "services"], new AbortController().signal);
    main.nodeCache.upsert(node("a"));
    main.serviceCache.upsert(service("web"));
    main.nodeCache.upsert({ ...node("a", "2"), status: { addresses: [] } });
    main.serviceCache.upsert({ ...service("web", "2"), status: { loadBalancer: {} } });
    main.nodeCache.upsert({ ...node("a", "3", { zone: "z" }), status: { addresses: [] } });
    await Bun.sleep(0);
    for (const f of pending.splice(0)) f();
    const owners = sent.flat().map((f) => `${f.op[0]} ${f.op[1]} ${f.owner ?? "all"}`);
    expect(owners.filter((o) => !o.includes("synced"))).toEqual([
      "nodes set all",
      "services set all",
      "nodes set a",
      "services set all",
      "nodes set all",
    ]);
    forwarder.close();
  });

  test("a handler added late gets the cached objects as adds", async () => {
    const { main, mirror, flush } = wired();
    main.nodeCache.upsert(node("a"));
    await flush();
    const seen: string[] = [];
    mirror.nodes().addHandler(recorder(seen));
    expect(seen).toEqual(["add a"]);
  });

  test("the thread asks for what its controllers read: at run, then each new one at once", async () => {
    const { mirror, watched } = wired();
    mirror.nodes();
    mirror.nodes();
    expect(watched).toEqual([]);
    const stop = new AbortController();
    const running = mirror.run(stop.signal);
    expect(watched).toEqual([["nodes"]]);
    mirror.services();
    mirror.services();
    expect(watched).toEqual([["nodes"], ["services"]]);
    stop.abort();
    await running;
  });

  test("the main thread starts forwarding a resource once, however many threads ask", () => {
    const main = mainInformers();
    const stop = new AbortController();
    let asked = 0;
    const counting = { ...main, nodes: () => (asked++, main.nodeCache) };
    const forwarder = forwardInformers({ informers: counting, send: () => undefined, schedule: () => undefined });
    forwarder.watch(["nodes"], stop.signal);
    forwarder.watch(["nodes"], stop.signal);
    expect(asked).toBe(1);
  });

  test("after close nothing more is sent", async () => {
    const { main, batches, flush, close } = wired();
    main.nodeCache.upsert(node("a"));
    close();
    main.nodeCache.upsert(node("b"));
    await flush();
    expect(batches).toEqual([]);
  });
});
