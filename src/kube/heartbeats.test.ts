import { describe, expect, test } from "bun:test";
import { createLogger } from "../log/logger.ts";
import { realClock } from "../util/clock.ts";
import { NODES, type KubeApi, type ObjectList } from "./api.ts";
import { NODE_FINGERPRINTS, fingerprintOf, itemDigests } from "./heartbeats.ts";
import { Informer } from "./informer.ts";
import type { Node } from "./objects.ts";
import { trimNode } from "./transforms.ts";
import { MAX_HOLD_MS } from "./watch-pace.ts";

interface Change {
  resourceVersion?: string;
  heartbeat?: string;
  managedTime?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ready?: string;
  transition?: string;
  timeAdded?: string;
}

/** A Node laid out as the API server writes it (keys in Go's field order). */
function nodeObject(name: string, c: Change = {}): object {
  return {
    kind: "Node",
    apiVersion: "v1",
    metadata: {
      name,
      uid: "6b0f4c1e",
      resourceVersion: c.resourceVersion ?? "100",
      creationTimestamp: "2026-11-27T10:00:00Z",
      labels: c.labels ?? { "kubernetes.io/hostname": name },
      annotations: c.annotations ?? { "node.alpha.kubernetes.io/ttl": "0" },
      managedFields: [
        {
          manager: "kubelet",
          operation: "Update",
          apiVersion: "v1",
          time: c.managedTime ?? "2026-11-27T10:00:00Z",
          fieldsType: "FieldsV1",
          fieldsV1: { "f:status": { "f:conditions": { 'k:{"type":"Ready"}': { "f:lastHeartbeatTime": {} } } } },
          subresource: "status",
        },
      ],
    },
    spec: {
      providerID: `fake://${name}`,
      taints: [{ key: "example.com/t", effect: "NoSchedule", timeAdded: c.timeAdded ?? "2026-11-27T10:00:00Z" }],
    },
    status: {
      conditions: [
        {
          type: "Ready",
          status: c.ready ?? "True",
          lastHeartbeatTime: c.heartbeat ?? "2026-11-27T10:00:00Z",
          lastTransitionTime: c.transition ?? "2026-11-27T10:00:00Z",
          reason: "KubeletReady",
          message: "kubelet is posting ready status",
        },
      ],
    },
  };
}

/** A Node's watch event as the API server writes it. */
function nodeEvent(type: string, name: string, c: Change = {}): Buffer {
  return Buffer.from(JSON.stringify({ type, object: nodeObject(name, c) }));
}

/** A Node list answer as the API server writes it: its items without `kind` and `apiVersion`. */
function nodeList(resourceVersion: string, nodes: [string, Change][]): string {
  const items = nodes.map(([name, c]) => {
    const { kind: _kind, apiVersion: _apiVersion, ...item } = nodeObject(name, c) as Record<string, unknown>;
    return item;
  });
  return JSON.stringify({ kind: "NodeList", apiVersion: "v1", metadata: { resourceVersion }, items });
}

const digest = (line: Buffer): unknown => fingerprintOf(line)?.digest;

describe("heartbeat fingerprints", () => {
  const first = nodeEvent("MODIFIED", "node-1");

  test("the name, the resourceVersion, and one digest for events that differ only where a heartbeat does", () => {
    const beat = nodeEvent("MODIFIED", "node-1", {
      resourceVersion: "107",
      heartbeat: "2026-11-27T10:00:40Z",
      managedTime: "2026-11-27T10:00:40Z",
    });
    expect(fingerprintOf(beat)).toMatchObject({ type: "MODIFIED", key: "node-1", resourceVersion: "107" });
    expect(digest(beat)).toBe(digest(first) as never);
    expect(fingerprintOf(nodeEvent("ADDED", "node-1"))?.type).toBe("ADDED");
  });

  /** Two events that differ in one value a heartbeat does not change. */
  const changes: [string, Change, Change][] = [
    ["a label", { labels: { zone: "a" } }, { labels: { zone: "b" } }],
    ["an annotation named time", { annotations: { time: "10:00" } }, { annotations: { time: "10:01" } }],
    [
      "an annotation named lastHeartbeatTime",
      { annotations: { lastHeartbeatTime: "10:00" } },
      { annotations: { lastHeartbeatTime: "10:01" } },
    ],
    ["the Ready status", { ready: "True" }, { ready: "False" }],
    ["a transition time", { transition: "2026-11-27T10:00:00Z" }, { transition: "2026-11-27T10:00:40Z" }],
    ["a taint's time", { timeAdded: "2026-11-27T10:00:00Z" }, { timeAdded: "2026-11-27T10:00:40Z" }],
  ];
  for (const [what, a, b] of changes)
    test(`${what} changes the digest`, () => {
      expect(digest(nodeEvent("MODIFIED", "node-1", a))).not.toBe(digest(nodeEvent("MODIFIED", "node-1", b)) as never);
      expect(digest(nodeEvent("MODIFIED", "node-1", a))).toBe(digest(nodeEvent("MODIFIED", "node-1", a)) as never);
    });

  test("another Node with the same content has the same digest but its own key", () => {
    expect(fingerprintOf(nodeEvent("MODIFIED", "node-2"))?.key).toBe("node-2");
  });

  test("no fingerprint: other event types, other layouts", () => {
    const text = first.toString("utf8");
    const none = [
      nodeEvent("DELETED", "node-1"),
      nodeEvent("BOOKMARK", "node-1"),
      Buffer.from('{"type":"ERROR","object":{"kind":"Status","code":410}}'),
      Buffer.from(text.replace(/,"managedFields":\[.*\]\},"spec"/, '},"spec"')),
      Buffer.from(text.replace('"metadata":{"name":"node-1",', '"metadata":{"uid":"x","name":"node-1",')),
      Buffer.from(text.replace('"uid":"6b0f4c1e",', '"generateName":"a{b",')),
      Buffer.from(JSON.stringify(JSON.parse(text), null, 1)),
    ];
    for (const line of none) expect(fingerprintOf(line)).toBeUndefined();
  });
});

describe("the digests of a list's items", () => {
  const zoneB = { labels: { zone: "b" } };
  const beat = { resourceVersion: "120", heartbeat: "2026-11-27T10:00:40Z", managedTime: "2026-11-27T10:00:40Z" };
  const list = nodeList("110", [
    ["node-1", {}],
    ["node-2", zoneB],
    ["node-3", {}],
  ]);

  test("each item has the digest of its Node's next heartbeat event, the last item too", () => {
    const digests = itemDigests(Buffer.from(list));
    expect([...digests.keys()]).toEqual(["node-1", "node-2", "node-3"]);
    expect(digests.get("node-1")).toBe(digest(nodeEvent("MODIFIED", "node-1", beat)) as never);
    expect(digests.get("node-2")).toBe(digest(nodeEvent("MODIFIED", "node-2", { ...zoneB, ...beat })) as never);
    expect(digests.get("node-2")).not.toBe(digest(nodeEvent("MODIFIED", "node-2", beat)) as never);
    expect(digests.get("node-3")).toBe(digest(nodeEvent("MODIFIED", "node-3", beat)) as never);
    expect(itemDigests(Buffer.from(`${list}\n`))).toEqual(digests);
  });

  test("none for an empty or pretty-printed list; an item of another layout has none, the others theirs", () => {
    expect(itemDigests(Buffer.from(nodeList("110", []))).size).toBe(0);
    expect(itemDigests(Buffer.from(JSON.stringify(JSON.parse(list), null, 1))).size).toBe(0);
    const bare = list.replace(/,"managedFields":\[[^\]]*\]\},"spec"/, '},"spec"');
    expect(bare).not.toBe(list);
    expect([...itemDigests(Buffer.from(bare)).keys()]).toEqual(["node-2", "node-3"]);
  });
});

/** An API whose lists (answers as text) and watches play a script; the last watch waits for the end. */
function scriptedApi(lists: string[], watches: Buffer[][], done: AbortSignal): KubeApi {
  const listText = async (): Promise<string> => lists.shift()!;
  const list = async (): Promise<ObjectList<Node>> => JSON.parse(await listText()) as ObjectList<Node>;
  async function* watchLines(): AsyncGenerator<Buffer> {
    const lines = watches.shift();
    if (lines === undefined) return void (await new Promise((resolve) => done.addEventListener("abort", resolve)));
    yield* lines;
  }
  return { list, listText, watchLines } as unknown as KubeApi;
}

const parsed = (line: Buffer): Node => trimNode((JSON.parse(line.toString("utf8")) as { object: Node }).object);

describe("an informer with heartbeat fingerprints", () => {
  test("a heartbeat, the first after the list too, is the cached Node at its new version; a relist forgets", async () => {
    const zone = (z: string): Change => ({ labels: { zone: z } });
    const beat = (z: string, resourceVersion: string, second: number): Buffer =>
      nodeEvent("MODIFIED", "node-1", { ...zone(z), resourceVersion, heartbeat: `2026-11-27T10:00:${second}Z` });
    const expired = Buffer.from('{"type":"ERROR","object":{"kind":"Status","code":410,"reason":"Expired"}}');
    const stop = new AbortController();
    const api = scriptedApi(
      [
        nodeList("100", [["node-1", zone("a")]]),
        nodeList("105", [["node-1", { ...zone("b"), resourceVersion: "105" }]]),
      ],
      [[beat("a", "101", 10), beat("c", "102", 20), beat("c", "103", 30), expired], [beat("a", "106", 40)]],
      stop.signal,
    );
    const logger = createLogger({ verbosity: 0, format: "text", write: () => undefined });
    const informer = new Informer<Node>({
      api,
      resource: NODES,
      logger,
      transform: trimNode,
      fingerprint: NODE_FINGERPRINTS,
    });
    const seen: string[] = [];
    informer.addHandler({
      update: (old, obj) => {
        // A Node taken for a heartbeat is the cached copy at a new version: its spec is the same object.
        const kept = old.spec === obj.spec ? " kept" : "";
        seen.push(`${old.metadata.resourceVersion}→${obj.metadata.resourceVersion}${kept}`);
      },
    });
    const running = informer.run(stop.signal);
    while (informer.get("node-1")?.metadata.resourceVersion !== "106") await Bun.sleep(1);
    stop.abort();
    await running;
    // 101 has the listed Node's digest; 102 (zone c) is decoded and 103 is its heartbeat. The relist at
    // 105 holds zone b, so 106 (zone a again, the digest of the first list's item and of 101) is decoded.
    expect(seen).toEqual(["100→101 kept", "101→102", "102→103 kept", "103→105", "105→106"]);
    expect(informer.get("node-1")).toEqual(parsed(beat("a", "106", 40)));
  });
});

describe("an informer's watch of heartbeats", () => {
  test("is read at a pace while it brings only heartbeats; any other event reads on at once", async () => {
    const zone = (z: string): Change => ({ labels: { zone: z } });
    const beat = (z: string, resourceVersion: string): Buffer =>
      nodeEvent("MODIFIED", "node-1", {
        ...zone(z),
        resourceVersion,
        heartbeat: `2026-11-27T10:00:${resourceVersion}Z`,
      });
    // Each read of the watch's connection, and the pace asked for once its events were used up.
    const reads = [[beat("a", "11")], [beat("a", "12"), beat("b", "13")], [beat("b", "14"), beat("b", "15")], []];
    const paces: number[] = [];
    const stop = new AbortController();
    const api = scriptedApi([nodeList("10", [["node-1", zone("a")]])], [], stop.signal);
    api.watchLines = async function* (_, options) {
      for (const lines of reads) {
        yield* lines;
        paces.push(options.pace!());
      }
      stop.abort();
    };
    let now = 0;
    const clock = { ...realClock, now: () => (now += 40) };
    const logger = createLogger({ verbosity: 0, format: "text", write: () => undefined });
    const informer = new Informer<Node>({ api, resource: NODES, logger, clock, fingerprint: NODE_FINGERPRINTS });
    await informer.run(stop.signal);
    expect(informer.get("node-1")?.metadata.resourceVersion).toBe("15");
    expect(paces).toEqual([MAX_HOLD_MS, 0, MAX_HOLD_MS, 0]);
  });

  test("without fingerprints every event is applied and no pace is asked for", async () => {
    const events = [nodeEvent("MODIFIED", "node-1", { resourceVersion: "11" }), nodeEvent("ADDED", "node-2", {})];
    const stop = new AbortController();
    const api = scriptedApi([nodeList("10", [["node-1", {}]])], [], stop.signal);
    const asked: boolean[] = [];
    api.watchLines = async function* (_, options) {
      asked.push(options.pace !== undefined);
      yield* events;
      stop.abort();
    };
    const logger = createLogger({ verbosity: 0, format: "text", write: () => undefined });
    const informer = new Informer<Node>({ api, resource: NODES, logger });
    await informer.run(stop.signal);
    expect(informer.get("node-1")?.metadata.resourceVersion).toBe("11");
    expect(informer.get("node-2")).toBeDefined();
    expect(asked).toEqual([false]);
  });
});
