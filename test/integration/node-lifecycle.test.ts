/**
 * cloud-node-lifecycle-controller (with the node controller beside it) against the real kube-apiserver,
 * the CCM running as the restricted identity. Ready is set through the admin identity: no
 * kube-controller-manager runs.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { ControlPlane } from "../../scripts/control-plane/control-plane.ts";
import type { Node } from "../../src/kube/objects.ts";
import { TAINT_SHUTDOWN, TAINT_UNINITIALIZED } from "../../src/kube/well-known.ts";
import { startCcm, type CcmProcess } from "../harness/ccm.ts";
import { controlPlane } from "../harness/control-plane.ts";
import { startFakeCloud, type TestFakeCloud } from "../harness/fake-cloud.ts";
import { kubeletNode, uniqueName, type KubeletNodeOptions } from "../harness/fixtures.ts";
import { eventually, holds } from "../harness/wait.ts";
import {
  address,
  deleteNodes,
  getNode,
  isInitialised,
  nodeControllerArgs,
  nodeEvents,
  registerNode,
  setReady,
} from "./nodes.ts";

const PERIOD_S = 2;
const taintKeys = (node: Node | undefined): string[] => (node?.spec?.taints ?? []).map((t) => t.key);

// Each case waits on a real API server and CCM; the 5 s default is too short on 2 busy cores.
setDefaultTimeout(60_000);

describe("cloud-node-lifecycle-controller", () => {
  let cp: ControlPlane;
  let cloud: TestFakeCloud;
  let ccm: CcmProcess;
  const created: string[] = [];

  /** An instance and its kubelet Node, optionally waited on until initialised. */
  const register = async (
    prefix: string,
    o: KubeletNodeOptions & { instance?: boolean; initialised?: boolean } = {},
  ): Promise<string> => {
    const name = uniqueName(prefix);
    if (o.instance !== false)
      cloud.engine.putInstance(
        cloud.engine.instanceWithDefaults({ name, addresses: [address("InternalIP", "10.3.0.1")] }),
      );
    created.push(name);
    await registerNode(cp, kubeletNode(name, o));
    if (o.initialised) await eventually(`node ${name} initialised`, async () => isInitialised(await getNode(cp, name)));
    return name;
  };

  beforeAll(async () => {
    cp = await controlPlane();
    cloud = startFakeCloud("", { batching: true, maxBatchSize: 100 });
    ccm = startCcm({ args: nodeControllerArgs(cp, cloud, [`--node-monitor-period=${PERIOD_S}s`]) });
    await ccm.waitForLine(/started 2 controller\(s\)/);
  });

  afterAll(async () => {
    cloud.engine.setFaults({ latencyMs: 0, errorRate: 0 });
    await ccm?.stop();
    await deleteNodes(cp, created);
    await cloud?.stop();
  }, 60_000);

  test("a stopped instance taints its NotReady node; the taint goes only once the node is Ready again", async () => {
    const name = await register("stop", { ready: true, initialised: true });
    cloud.engine.setInstanceState(name, "stopped");
    await setReady(cp, name, false);
    await eventually(`shutdown taint on ${name}`, async () =>
      taintKeys(await getNode(cp, name)).includes(TAINT_SHUTDOWN),
    );
    expect((await getNode(cp, name))?.spec?.taints).toEqual([{ key: TAINT_SHUTDOWN, effect: "NoSchedule" }]);

    cloud.engine.setInstanceState(name, "running");
    await holds(
      `${name} keeps the shutdown taint while NotReady, though its instance runs`,
      3 * PERIOD_S * 1000,
      async () => taintKeys(await getNode(cp, name)).includes(TAINT_SHUTDOWN),
    );

    await setReady(cp, name, true);
    await eventually(
      `shutdown taint removed from ${name}`,
      async () => taintKeys(await getNode(cp, name)).length === 0,
    );
    expect(await getNode(cp, name)).toBeDefined();
  });

  test("a deleted instance: its NotReady node is deleted once two answers a period apart agree, with a DeletingNode event", async () => {
    const name = await register("gone", { ready: false, initialised: true });
    cloud.engine.removeInstance(name);
    const first = await ccm.waitForLine(
      new RegExp(`node ${name} does not exist in the cloud provider; deleting it if that is still so`),
    );
    await eventually(`node ${name} deleted`, async () => (await getNode(cp, name)) === undefined, 30_000);
    const deleting = await ccm.waitForLine(new RegExp(`deleting node ${name} since it is no longer present`));
    expect(ccm.lines.indexOf(first)).toBeLessThan(ccm.lines.indexOf(deleting));
    const events = await eventually(`DeletingNode event for ${name}`, async () => {
      const list = (await nodeEvents(cp, name)).filter((e) => e.reason === "DeletingNode");
      return list.length > 0 && list;
    });
    expect(events.map((e) => [e.type, e.message, e.source.component])).toEqual([
      [
        "Normal",
        `Deleting node ${name} because it does not exist in the cloud provider`,
        "cloud-node-lifecycle-controller",
      ],
    ]);
  });

  test("one 'does not exist' that the next answer contradicts deletes nothing", async () => {
    const name = await register("blip", { ready: false, initialised: true });
    cloud.engine.removeInstance(name);
    await ccm.waitForLine(new RegExp(`node ${name} does not exist in the cloud provider`));
    cloud.engine.putInstance(
      cloud.engine.instanceWithDefaults({ name, addresses: [address("InternalIP", "10.3.0.1")] }),
    );
    await holds(`${name} still exists`, 3 * PERIOD_S * 1000, async () => (await getNode(cp, name)) !== undefined);
    expect(ccm.output()).not.toContain(`deleting node ${name} `);
  });

  test("the cloud failing, then throttling: no node is deleted, and initialisation completes once it recovers", async () => {
    cloud.engine.setFaults({ latencyMs: 0, errorRate: 0, failAll: "error" });
    const notReady = [await register("outage-nr", { ready: false }), await register("outage-nr", { ready: false })];
    const uninitialised = [await register("outage-new", { ready: true }), await register("outage-new", {})];
    const gone = await register("outage-gone", { ready: false, instance: false });
    const all = [...notReady, ...uninitialised, gone];
    const before = cloud.engine.calls();
    const untouched = async (): Promise<boolean> => {
      const nodes = await Promise.all(all.map((n) => getNode(cp, n)));
      return nodes.every((n) => n !== undefined && taintKeys(n).includes(TAINT_UNINITIALIZED));
    };
    await holds("every node exists and stays uninitialised while the cloud fails", 3 * PERIOD_S * 1000, untouched);
    cloud.engine.setFaults({ latencyMs: 0, errorRate: 0, failAll: "throttle" });
    await holds("every node exists and stays uninitialised while the cloud throttles", 3 * PERIOD_S * 1000, untouched);
    const during = cloud.engine.calls();
    expect(during.InstanceStateBatch ?? 0).toBeGreaterThan(before.InstanceStateBatch ?? 0);
    expect(during.InstanceMetadataBatch ?? 0).toBeGreaterThan(before.InstanceMetadataBatch ?? 0);
    expect(ccm.output()).toMatch(
      /could not check \d+ NotReady node\(s\) in the cloud, none deleted; first: .*RequestLimitExceeded/,
    );

    cloud.engine.setFaults({ latencyMs: 0, errorRate: 0 });
    await eventually(
      "every node with an instance initialised after the cloud recovers",
      async () => {
        const nodes = await Promise.all([...notReady, ...uninitialised].map((n) => getNode(cp, n)));
        return nodes.every(isInitialised);
      },
      90_000,
      500,
    );
    // Only the node whose instance never existed goes, and only now that the cloud answers again.
    await eventually(
      `node ${gone} deleted after the cloud recovers`,
      async () => (await getNode(cp, gone)) === undefined,
      30_000,
    );
    for (const name of [...notReady, ...uninitialised]) expect(await getNode(cp, name)).toBeDefined();
  }, 180_000);

  test("the CCM was never refused by the API server (RBAC is enough)", () => {
    expect(ccm.output()).not.toMatch(/forbidden/i);
  });
});
