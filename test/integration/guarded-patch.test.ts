/**
 * The Node initialising write as a JSON patch that tests only what its decision read, against the real
 * kube-apiserver: a status write meanwhile costs nothing, a taint added meanwhile is kept (the test
 * fails, the Node is read again), and a providerID set meanwhile is refused by the API server's own
 * validation and then respected.
 */
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createAdminApi } from "../../scripts/control-plane/admin.ts";
import type { ControlPlane } from "../../scripts/control-plane/control-plane.ts";
import type { InstanceMetadata } from "../../src/cloud/provider.ts";
import {
  INIT_READS,
  needsInitialization,
  planInitialization,
} from "../../src/controllers/cloud-node-controller/plan.ts";
import { NODES, type KubeApi } from "../../src/kube/api.ts";
import type { Node } from "../../src/kube/objects.ts";
import { NODE_UPDATE_RETRY, patchWithPrecondition } from "../../src/kube/patch.ts";
import type { Request } from "../../src/kube/transport.ts";
import { controlPlane } from "../harness/control-plane.ts";
import { kubeletNode, uniqueName } from "../harness/fixtures.ts";
import { INTEGRATION_TIMEOUT_MS } from "./support.ts";

setDefaultTimeout(INTEGRATION_TIMEOUT_MS);

/** The admin's API, logging `METHOD path` of each request. */
async function recordingApi(cp: ControlPlane): Promise<{ api: KubeApi; requests: string[] }> {
  const requests: string[] = [];
  const log = (r: Request): void => void requests.push(`${r.method} ${r.path.split("/").slice(-2).join("/")}`);
  const api = await createAdminApi(cp.kubeconfigs.admin, (inner) => ({
    ...inner,
    text: (request) => (log(request), inner.text(request)),
    json: (request) => (log(request), inner.json(request)),
  }));
  return { api, requests };
}

function metadataFor(name: string): InstanceMetadata {
  return {
    providerID: `fake://${name}`,
    instanceType: "fake.small",
    zone: "zone-a",
    region: "region-1",
    nodeAddresses: [{ type: "InternalIP", address: "10.0.0.1" }],
  };
}

/** Initialises `from` (a copy read earlier) as the node controller does. */
async function initialise(api: KubeApi, from: Node): Promise<Node | undefined> {
  const metadata = metadataFor(from.metadata.name);
  return patchWithPrecondition({
    api,
    resource: NODES,
    from,
    policy: NODE_UPDATE_RETRY,
    guards: INIT_READS,
    build: (current) => {
      if (!needsInitialization(current)) return undefined;
      const plan = planInitialization(current, metadata);
      return plan.ok ? plan.value.patch : undefined;
    },
  });
}

describe("the initialising write tests what it read (real kube-apiserver)", () => {
  let cp: ControlPlane;
  beforeAll(async () => {
    cp = await controlPlane();
  });

  test("a status heartbeat meanwhile: one PATCH, and the heartbeat is kept", async () => {
    const { api, requests } = await recordingApi(cp);
    const name = uniqueName("guarded");
    const read = await cp.admin.create<Node>(NODES, kubeletNode(name, { nodeIP: "10.0.0.1" }));
    const heartbeat = { type: "Ready", status: "True", reason: "KubeletReady", message: "beat" };
    await cp.admin.patch(
      NODES,
      name,
      { status: { conditions: [heartbeat] } },
      { type: "strategic", subresource: "status" },
    );
    const written = await initialise(api, read);
    expect(requests).toEqual([`PATCH nodes/${name}`]);
    const stored = await cp.admin.get<Node>(NODES, name);
    expect(written?.metadata.resourceVersion).toBe(stored.metadata.resourceVersion ?? "missing");
    expect(stored.spec?.taints ?? []).toEqual([]);
    expect(stored.spec?.providerID).toBe(`fake://${name}`);
    expect(stored.metadata.labels?.["topology.kubernetes.io/zone"]).toBe("zone-a");
    expect(stored.status?.conditions?.find((c) => c.type === "Ready")?.message).toBe("beat");
    await cp.admin.delete(NODES, name);
  });

  test("a taint added meanwhile: the test fails, the Node is read again, and the new taint stays", async () => {
    const { api, requests } = await recordingApi(cp);
    const name = uniqueName("guarded");
    const read = await cp.admin.create<Node>(NODES, kubeletNode(name, { nodeIP: "10.0.0.1" }));
    const other = { key: "example.com/maintenance", value: "yes", effect: "NoSchedule" as const };
    await cp.admin.patch(NODES, name, { spec: { taints: [...(read.spec?.taints ?? []), other] } }, { type: "merge" });
    await initialise(api, read);
    expect(requests).toEqual([`PATCH nodes/${name}`, `GET nodes/${name}`, `PATCH nodes/${name}`]);
    expect((await cp.admin.get<Node>(NODES, name)).spec?.taints).toEqual([other]);
    await cp.admin.delete(NODES, name);
  });

  test("a providerID set meanwhile: the API server refuses ours, and the rebuilt write keeps theirs", async () => {
    const { api, requests } = await recordingApi(cp);
    const name = uniqueName("guarded");
    const read = await cp.admin.create<Node>(NODES, kubeletNode(name, { nodeIP: "10.0.0.1" }));
    await cp.admin.patch(NODES, name, { spec: { providerID: "other://machine-7" } }, { type: "merge" });
    await initialise(api, read);
    expect(requests).toEqual([`PATCH nodes/${name}`, `GET nodes/${name}`, `PATCH nodes/${name}`]);
    const stored = await cp.admin.get<Node>(NODES, name);
    expect([stored.spec?.providerID, stored.spec?.taints ?? []]).toEqual(["other://machine-7", []]);
    await cp.admin.delete(NODES, name);
  });
});
