import { describe, expect, test } from "bun:test";
import { createLogger } from "../log/logger.ts";
import { NODES, type KubeApi, type ObjectList } from "./api.ts";
import { fingerprintOf } from "./heartbeats.ts";
import { Informer } from "./informer.ts";
import type { Node } from "./objects.ts";
import { trimNode } from "./transforms.ts";

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

/** A Node's watch event laid out as the API server writes it (keys in Go's field order). */
function nodeEvent(type: string, name: string, c: Change = {}): Buffer {
  const object = {
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
  return Buffer.from(JSON.stringify({ type, object }));
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

/** An API whose lists and watches play a script; the last watch waits for the end of the test. */
function scriptedApi(lists: ObjectList<Node>[], watches: Buffer[][], done: AbortSignal): KubeApi {
  const list = async (): Promise<ObjectList<Node>> => lists.shift()!;
  async function* watchLines(): AsyncGenerator<Buffer> {
    const lines = watches.shift();
    if (lines === undefined) return void (await new Promise((resolve) => done.addEventListener("abort", resolve)));
    yield* lines;
  }
  return { list, watchLines } as unknown as KubeApi;
}

const parsed = (line: Buffer): Node => trimNode((JSON.parse(line.toString("utf8")) as { object: Node }).object);

describe("an informer with heartbeat fingerprints", () => {
  test("a heartbeat is the cached Node at its new version; after a relist every event is decoded again", async () => {
    const zoneA = { labels: { zone: "a" } };
    const listed = (resourceVersion: string, labels: Record<string, string>): ObjectList<Node> => ({
      metadata: { resourceVersion },
      items: [parsed(nodeEvent("ADDED", "node-1", { resourceVersion, labels }))],
    });
    const expired = Buffer.from('{"type":"ERROR","object":{"kind":"Status","code":410,"reason":"Expired"}}');
    const stop = new AbortController();
    const api = scriptedApi(
      [listed("100", { zone: "a" }), listed("105", { zone: "b" })],
      [
        [
          nodeEvent("MODIFIED", "node-1", { ...zoneA, resourceVersion: "101" }),
          nodeEvent("MODIFIED", "node-1", { ...zoneA, resourceVersion: "102", heartbeat: "2026-11-27T10:00:40Z" }),
          expired,
        ],
        [nodeEvent("MODIFIED", "node-1", { ...zoneA, resourceVersion: "106", heartbeat: "2026-11-27T10:01:20Z" })],
      ],
      stop.signal,
    );
    const logger = createLogger({ verbosity: 0, format: "text", write: () => undefined });
    const informer = new Informer<Node>({
      api,
      resource: NODES,
      logger,
      transform: trimNode,
      fingerprint: fingerprintOf,
    });
    const seen: string[] = [];
    informer.addHandler({
      update: (old, obj) => void seen.push(`${old.metadata.resourceVersion}→${obj.metadata.resourceVersion}`),
    });
    const running = informer.run(stop.signal);
    while (informer.get("node-1")?.metadata.resourceVersion !== "106") await Bun.sleep(1);
    stop.abort();
    await running;
    // 101 decoded; 102 a heartbeat of it; the relist at 105 holds zone b, so 106 (zone a again, the
    // fingerprint of 101 and 102) is decoded, not taken for a heartbeat of the relisted Node.
    expect(seen).toEqual(["100→101", "101→102", "102→105", "105→106"]);
    expect(informer.get("node-1")).toEqual(
      parsed(nodeEvent("MODIFIED", "node-1", { ...zoneA, resourceVersion: "106", heartbeat: "2026-11-27T10:01:20Z" })),
    );
  });
});
