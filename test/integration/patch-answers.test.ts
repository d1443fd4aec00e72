/**
 * A patch or a create whose caller reads only the written resourceVersion asks the API server for the
 * object's metadata alone (`METADATA_ONLY`): the real kube-apiserver answers a PATCH of a Node, and of its
 * status, and the POST of an Event, with a PartialObjectMetadata, and the version read from it is the one
 * the object now has.
 */
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { ControlPlane } from "../../scripts/control-plane/control-plane.ts";
import { createAdminApi } from "../../scripts/control-plane/admin.ts";
import { EVENTS, METADATA_ONLY, NODES, type KubeApi } from "../../src/kube/api.ts";
import type { KubeObject, Node } from "../../src/kube/objects.ts";
import { controlPlane } from "../harness/control-plane.ts";
import { kubeletNode, uniqueName } from "../harness/fixtures.ts";
import { INTEGRATION_TIMEOUT_MS } from "./support.ts";

setDefaultTimeout(INTEGRATION_TIMEOUT_MS);

/** The admin's API, keeping each text answer with the Accept header it was asked with. */
async function recordingApi(cp: ControlPlane): Promise<{ api: KubeApi; answers: [string, string][] }> {
  const answers: [string, string][] = [];
  const api = await createAdminApi(cp.kubeconfigs.admin, (inner) => ({
    ...inner,
    text: async (request) => {
      const answer = await inner.text(request);
      answers.push([request.accept ?? "application/json", answer]);
      return answer;
    },
  }));
  return { api, answers };
}

describe("writes answered with metadata only (real kube-apiserver)", () => {
  let cp: ControlPlane;
  beforeAll(async () => {
    cp = await controlPlane();
  });

  test("a Node's labels and its status: the version returned is the object's, the answer its metadata", async () => {
    const { api, answers } = await recordingApi(cp);
    const name = uniqueName("patch-answers");
    const created = await cp.admin.create<Node>(NODES, kubeletNode(name));
    const labels = {
      metadata: { labels: { "example.com/probe": "1" }, resourceVersion: created.metadata.resourceVersion },
    };
    const afterLabels = await api.patchVersion(NODES, name, labels, { type: "merge" });
    expect(afterLabels).toBe((await cp.admin.get<Node>(NODES, name)).metadata.resourceVersion ?? "missing");
    const status = { status: { addresses: [{ type: "InternalIP", address: "10.9.0.1" }] } };
    const afterStatus = await api.patchVersion(NODES, name, status, { type: "merge", subresource: "status" });
    const stored = await cp.admin.get<Node>(NODES, name);
    expect(afterStatus).toBe(stored.metadata.resourceVersion ?? "missing");
    expect(Number(afterStatus)).toBeGreaterThan(Number(afterLabels));
    expect(stored.status?.addresses).toEqual([{ type: "InternalIP", address: "10.9.0.1" }]);
    expect(answers.map(([accept]) => accept)).toEqual([METADATA_ONLY, METADATA_ONLY]);
    for (const [, answer] of answers) {
      const decoded = JSON.parse(answer) as { kind: string; metadata: { name: string }; status?: unknown };
      expect([decoded.kind, decoded.metadata.name, decoded.status]).toEqual(["PartialObjectMetadata", name, undefined]);
    }
    await cp.admin.delete(NODES, name);
  });

  test("an Event's create: the version returned is the Event's, the answer its metadata", async () => {
    const { api, answers } = await recordingApi(cp);
    const name = uniqueName("create-answers");
    const event = {
      apiVersion: "v1",
      kind: "Event",
      metadata: { name, namespace: "default" },
      involvedObject: { kind: "Node", name, apiVersion: "v1" },
      reason: "Probe",
      message: "an answer asked for as metadata",
      type: "Normal",
      source: { component: "patch-answers-test" },
      count: 1,
    };
    const version = await api.createVersion(EVENTS, event, { namespace: "default" });
    const stored = await cp.admin.get<KubeObject>(EVENTS, name, { namespace: "default" });
    expect(version).toBe(stored.metadata.resourceVersion ?? "missing");
    expect(answers.map(([accept]) => accept)).toEqual([METADATA_ONLY]);
    const decoded = JSON.parse(answers[0]![1]) as { kind: string; metadata: { name: string }; message?: string };
    expect([decoded.kind, decoded.metadata.name, decoded.message]).toEqual(["PartialObjectMetadata", name, undefined]);
    await cp.admin.delete(EVENTS, name, { namespace: "default" });
  });
});
