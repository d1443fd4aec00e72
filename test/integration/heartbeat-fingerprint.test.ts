/**
 * The heartbeat fingerprint (src/kube/heartbeats.ts) against the real kube-apiserver's watch: its events
 * have the layout the fingerprint reads, two status heartbeats of a Node have one fingerprint, and a
 * label or a condition's status changed in between gives another.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createAdminApi } from "../../scripts/control-plane/admin.ts";
import { NODES, type KubeApi } from "../../src/kube/api.ts";
import { fingerprintOf } from "../../src/kube/heartbeats.ts";
import type { Node } from "../../src/kube/objects.ts";
import { controlPlane } from "../harness/control-plane.ts";
import { kubeletNode, uniqueName } from "../harness/fixtures.ts";
import { INTEGRATION_TIMEOUT_MS } from "./support.ts";

setDefaultTimeout(INTEGRATION_TIMEOUT_MS);

const name = uniqueName("fingerprint");
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
  await api.create(NODES, kubeletNode(name, { ready: true }));
});

afterAll(() => api.delete(NODES, name).catch(() => undefined));

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
    for (const write of writes) {
      await write();
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
    expect(new Set([third, labelled, notReady]).size).toBe(3);
  });
});
