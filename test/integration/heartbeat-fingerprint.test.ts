/**
 * The heartbeat fingerprint (src/kube/heartbeats.ts) against the real kube-apiserver's watch: its events
 * have the layout the fingerprint reads, two status heartbeats of a Node have one fingerprint, and a
 * label or a condition's status changed in between gives another; a list's item has the digest of the
 * Node's next heartbeat event. And the benchmark's established live Nodes: kwok's next heartbeat of one is
 * the listed Node but for its times, as a long-running kubelet's is.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createAdminApi } from "../../scripts/control-plane/admin.ts";
import { KWOK_FIELD_MANAGER, heartbeatPatch } from "../../scripts/bench/kwok.ts";
import { nodeName } from "../../scripts/bench/objects.ts";
import { createNodes } from "../../scripts/bench/scenarios/burst.ts";
import { NODES, type KubeApi } from "../../src/kube/api.ts";
import { fingerprintOf, itemDigests, type Digest } from "../../src/kube/heartbeats.ts";
import type { Node } from "../../src/kube/objects.ts";
import { controlPlane } from "../harness/control-plane.ts";
import { kubeletNode, uniqueName } from "../harness/fixtures.ts";
import { rfc3339 } from "../../src/util/clock.ts";
import { INTEGRATION_TIMEOUT_MS } from "./support.ts";

setDefaultTimeout(INTEGRATION_TIMEOUT_MS);

const name = uniqueName("fingerprint");
/** Nodes around it, so that its list page holds more than one item. */
const others = [uniqueName("fingerprint-a"), uniqueName("fingerprint-z")];
let api: KubeApi;

const ready = (status: string, second: number): object => ({
  status: {
    conditions: [
      {
        type: "Ready",
        status,
        reason: "KubeletReady",
        message: "kubelet is posting ready status",
        lastHeartbeatTime: `2026-11-27T10:00:${String(second).padStart(2, "0")}Z`,
      },
    ],
  },
});

beforeAll(async () => {
  api = await createAdminApi((await controlPlane()).kubeconfigs.admin);
  for (const node of [name, ...others]) await api.create(NODES, kubeletNode(node, { ready: true }));
});

afterAll(async () => {
  for (const node of [name, ...others]) await api.delete(NODES, node).catch(() => undefined);
});

/** The digests of every Node's list item, read in pages of 2. */
async function listedDigests(): Promise<Map<string, Digest>> {
  const digests = new Map<string, Digest>();
  let page: string | undefined;
  do {
    const answer = await api.listText(NODES, { limit: 2, continue: page });
    for (const [key, digest] of itemDigests(Buffer.from(answer))) digests.set(key, digest);
    page = (JSON.parse(answer) as { metadata: { continue?: string } }).metadata.continue || undefined;
  } while (page);
  return digests;
}

describe("heartbeat fingerprints of the API server's events", () => {
  test("heartbeats share one fingerprint; a label or a status changed does not", async () => {
    const { metadata } = await api.list<Node>(NODES, { fieldSelector: `metadata.name=${name}` });
    const stop = new AbortController();
    const lines = api.watchLines(NODES, {
      resourceVersion: metadata.resourceVersion,
      timeoutSeconds: 60,
      fieldSelector: `metadata.name=${name}`,
      signal: stop.signal,
    });
    const status = { type: "strategic" as const, subresource: "status" };
    const writes = [
      () => api.patch(NODES, name, ready("True", 1), status),
      () => api.patch(NODES, name, ready("True", 2), status),
      () => api.patch(NODES, name, ready("True", 3), status),
      () => api.patch(NODES, name, { metadata: { labels: { zone: "b" } } }, { type: "merge" }),
      () => api.patch(NODES, name, ready("False", 4), status),
    ];
    const prints = [];
    let listed: Map<string, Digest> | undefined;
    for (const write of writes) {
      await write();
      // Every Node, in pages of 2 (the cluster's other Nodes around this one): the Node as first written.
      if (prints.length === 0) listed = await listedDigests();
      const next = await lines.next();
      if (next.done) throw new Error("the watch ended");
      const line: Buffer = next.value;
      const event = JSON.parse(line.toString("utf8")) as { type: string; object: Node };
      const print = fingerprintOf(line);
      expect(print).toMatchObject({
        type: "MODIFIED",
        key: name,
        resourceVersion: event.object.metadata.resourceVersion,
      });
      prints.push(print?.digest);
    }
    stop.abort();
    await lines.return(undefined);
    const [, second, third, labelled, notReady] = prints;
    expect(second).toBe(third);
    expect(listed?.get(name)).toBe(second as never);
    for (const node of others) expect(listed?.has(node)).toBe(true);
    expect(new Set([third, labelled, notReady]).size).toBe(3);
  });
});

describe("the benchmark's live Nodes", () => {
  /** Far past the names other tests give bench Nodes. */
  const set = { first: 900_001, count: 3, initialised: true, live: { leaseSeconds: 40, heartbeatSeconds: 300 } };
  const names = [0, 1, 2].map((k) => nodeName(set.first + k));
  afterAll(async () => {
    for (const node of names) await api.delete(NODES, node).catch(() => undefined);
  });

  test("kwok's next heartbeat of an established Node changes nothing the digest reads", async () => {
    const asKwok = await createAdminApi((await controlPlane()).kubeconfigs.admin, undefined, KWOK_FIELD_MANAGER);
    await createNodes(api, set, asKwok);
    const node = await api.get<Node>(NODES, names[1]!);
    const managers = (node.metadata as { managedFields?: { manager: string; subresource?: string }[] }).managedFields;
    expect(managers?.map((f) => `${f.manager}/${f.subresource ?? ""}`)).toContain("kwok/status");
    const listed = await listedDigests();
    const lines = api.watchLines(NODES, {
      resourceVersion: node.metadata.resourceVersion ?? "",
      timeoutSeconds: 60,
      fieldSelector: `metadata.name=${names[1]}`,
      signal: new AbortController().signal,
    });
    const beat = rfc3339(Date.now() + 60_000);
    const target = { type: "strategic" as const, subresource: "status" };
    await asKwok.patch(NODES, names[1]!, heartbeatPatch(beat), target);
    const next = await lines.next();
    await lines.return(undefined);
    if (next.done) throw new Error("the watch ended");
    expect(next.value.toString("utf8")).toContain(beat);
    expect(fingerprintOf(next.value)?.digest).toBe(listed.get(names[1]!) as never);
  });
});
