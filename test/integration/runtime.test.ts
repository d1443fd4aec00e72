/**
 * The runtime pieces against the real API server: the shared informer's cache follows adds, updates and
 * deletes; the event recorder aggregates repeats into one Event (count, lastTimestamp) and its spam
 * filter caps a hot loop.
 */
import { describe, expect, test } from "bun:test";
import { EVENTS, NODES } from "../../src/kube/api.ts";
import { createEventSink } from "../../src/kube/events.ts";
import { Informer } from "../../src/kube/informer.ts";
import type { KubeObject, Node } from "../../src/kube/objects.ts";
import { trimNode } from "../../src/kube/transforms.ts";
import { createLogger } from "../../src/log/logger.ts";
import { controlPlane } from "../harness/control-plane.ts";
import { kubeletNode, uniqueName } from "../harness/fixtures.ts";
import { eventually } from "../harness/wait.ts";

const quiet = createLogger({ verbosity: 0, format: "text", write: () => undefined });

interface EventObject extends KubeObject {
  reason?: string;
  message?: string;
  count?: number;
  source?: { component?: string };
  involvedObject?: { name?: string; kind?: string };
}

describe("runtime against a real API server", () => {
  test("informer: list, then watch adds, updates and deletes; cached objects are trimmed", async () => {
    const cp = await controlPlane();
    const name = uniqueName("informed");
    const informer = new Informer<Node>({ api: cp.admin, resource: NODES, logger: quiet, transform: trimNode });
    const seen: string[] = [];
    informer.addHandler({
      add: (n) => n.metadata.name === name && seen.push("add"),
      update: (_o, n) => n.metadata.name === name && seen.push(`update:${n.metadata.labels?.step ?? ""}`),
      delete: (n) => n.metadata.name === name && seen.push("delete"),
    });
    const stop = new AbortController();
    const running = informer.run(stop.signal);
    expect(await informer.waitForSync(stop.signal)).toBe(true);
    await cp.admin.create(NODES, {
      ...kubeletNode(name),
      status: { addresses: [], conditions: [], nodeInfo: { kubeletVersion: "v1.36.3" } },
    } as Node);
    await eventually("the add", () => informer.get(name));
    expect(Object.keys(informer.get(name)?.status ?? {}).sort()).toEqual(["addresses", "conditions"]);
    await cp.admin.patch(NODES, name, { metadata: { labels: { step: "one" } } }, { type: "merge" });
    await eventually("the update", () => informer.get(name)?.metadata.labels?.step === "one");
    await cp.admin.delete(NODES, name);
    await eventually("the delete", () => informer.get(name) === undefined);
    expect(seen).toEqual(["add", "update:one", "delete"]);
    stop.abort();
    await running;
  });

  test("events: a repeat patches count; a hot loop is capped by the spam filter", async () => {
    const cp = await controlPlane();
    const name = uniqueName("evented");
    const node = await cp.admin.create(NODES, kubeletNode(name));
    const sink = createEventSink({ api: cp.admin, logger: quiet, host: "test-host" });
    const stop = new AbortController();
    const running = sink.run(stop.signal);
    const recorder = sink.recorder("runtime-test");
    const target = { ...node, apiVersion: "v1", kind: "Node" };
    recorder.event(target, "Normal", "Repeated", "same message");
    recorder.event(target, "Normal", "Repeated", "same message");
    for (let i = 0; i < 40; i++) recorder.event(target, "Warning", "Hot", `failure ${i}`);
    const events = await eventually("events to be written", async () => {
      const all = (await cp.admin.list<EventObject>(EVENTS, { namespace: "default" })).items.filter(
        (e) => e.involvedObject?.name === name,
      );
      const repeated = all.find((e) => e.reason === "Repeated");
      // 23 Hot events pass the spam filter (25, less the 2 above); from the tenth message on they are
      // combined into one, as client-go's aggregator does: 9 events, and one of count 14.
      const hot = all.filter((e) => e.reason === "Hot");
      const combined = hot.find((e) => e.message?.startsWith("(combined from similar events): "));
      return repeated?.count === 2 && hot.length === 10 && combined?.count === 14 ? all : undefined;
    });
    expect(events.filter((e) => e.reason === "Repeated")).toHaveLength(1);
    expect(events.every((e) => e.source?.component === "runtime-test" && e.involvedObject?.kind === "Node")).toBe(true);
    stop.abort();
    await running;
  });
});
