/**
 * cloud-node-controller under a burst of registrations: 500 Nodes at once with a batching provider, and
 * an API server restart in the middle of initialising. Behaviour only: timings and request counts are
 * printed for the record, never asserted; the cloud call count is (batching is the behaviour).
 */
import { afterEach, beforeAll, describe, expect, test } from "bun:test";
import type { ControlPlane } from "../../scripts/control-plane/control-plane.ts";
import type { Node } from "../../src/kube/objects.ts";
import { startCcm } from "../harness/ccm.ts";
import { controlPlane } from "../harness/control-plane.ts";
import { startFakeCloud, type TestFakeCloud } from "../harness/fake-cloud.ts";
import { kubeletNode, uniqueName } from "../harness/fixtures.ts";
import { eventually } from "../harness/wait.ts";
import {
  address,
  deleteNodes,
  eventsByNode,
  isInitialised,
  nodeControllerArgs,
  nodesWithPrefix,
  registerNode,
} from "./nodes.ts";

/** `count` instances and their kubelet Nodes (Ready, node IP given), named `<prefix>-<i>`. */
function fleet(cloud: TestFakeCloud, prefix: string, count: number): Node[] {
  return Array.from({ length: count }, (_, i) => {
    const name = `${prefix}-${i}`;
    const ip = `10.${20 + Math.floor(i / 250)}.${i % 250}.1`;
    cloud.engine.putInstance(
      cloud.engine.instanceWithDefaults({
        name,
        addresses: [address("InternalIP", ip), address("ExternalIP", `198.51.${Math.floor(i / 250)}.${i % 250}`)],
      }),
    );
    return kubeletNode(name, { nodeIP: ip, ready: true });
  });
}

async function registerAll(cp: ControlPlane, nodes: readonly Node[]): Promise<void> {
  for (let i = 0; i < nodes.length; i += 50) await Promise.all(nodes.slice(i, i + 50).map((n) => registerNode(cp, n)));
}

/** Initialised and carrying the cloud's addresses (node IP, ExternalIP, kubelet Hostname). */
const done = (n: Node): boolean => isInitialised(n) && n.status?.addresses?.length === 3;

/** Events are sent in the background, so they may trail the Node writes a little. */
async function expectOneSyncedEventEach(
  cp: ControlPlane,
  prefix: string,
  nodes: readonly Node[],
  atLeast: number,
): Promise<void> {
  const events = await eventually(
    `Synced events for ${atLeast} node(s)`,
    async () => {
      const byNode = await eventsByNode(cp, `${prefix}-`);
      return byNode.size >= atLeast && byNode;
    },
    60_000,
    500,
  );
  for (const list of events.values()) {
    const synced = list.filter((e) => e.reason === "Synced");
    expect(synced.length).toBeLessThanOrEqual(1);
    expect(synced[0]?.count ?? 1).toBe(1);
    expect(list.filter((e) => e.reason !== "Synced")).toEqual([]);
  }
  expect(events.size).toBeLessThanOrEqual(nodes.length);
}

describe("cloud-node-controller under load", () => {
  let cp: ControlPlane;
  const cleanup: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    cp = await controlPlane();
  });

  // Each test's Nodes go before the next test starts: its CCM would otherwise ask its own cloud about them.
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  }, 120_000);

  test("500 nodes registered at once all initialise, with far fewer cloud calls than nodes", async () => {
    const prefix = uniqueName("burst");
    const cloud = startFakeCloud("", { batching: true, maxBatchSize: 100 });
    const nodes = fleet(cloud, prefix, 500);
    cleanup.push(
      () => cloud.stop(),
      () =>
        deleteNodes(
          cp,
          nodes.map((n) => n.metadata.name),
        ),
    );
    const ccm = startCcm({
      args: nodeControllerArgs(cp, cloud, ["-v=4", "--kube-api-qps=100", "--kube-api-burst=200"]),
    });
    cleanup.push(async () => void (await ccm.stop()));
    await ccm.waitForLine(/caches synced/);
    const started = performance.now();
    await registerAll(cp, nodes);
    await eventually(
      "500 nodes initialised",
      async () => (await nodesWithPrefix(cp, `${prefix}-`)).filter(done).length === 500,
      180_000,
      500,
    );
    const seconds = (performance.now() - started) / 1000;
    const calls = cloud.engine.calls();
    await expectOneSyncedEventEach(cp, prefix, nodes, 500);
    expect(await ccm.stop()).toBe(0);

    expect(calls.InstanceMetadata ?? 0).toBe(0);
    expect(calls.InstanceMetadataBatch ?? 0).toBeGreaterThanOrEqual(5);
    expect(calls.InstanceMetadataBatch ?? 0).toBeLessThanOrEqual(50);
    const requests = ccm.lines.find((l) => l.includes("API requests sent:")) ?? "(no request summary logged)";
    console.error(
      `[figures] 500 nodes initialised in ${seconds.toFixed(1)} s; cloud calls ${JSON.stringify(calls)}; ${requests.slice(requests.indexOf("API requests"))}`,
    );
  }, 300_000);

  test("the API server stops and starts again while nodes initialise: every node ends initialised, no crash, no event flood", async () => {
    const prefix = uniqueName("restart");
    const cloud = startFakeCloud("faults: { latency: 100ms }", { batching: true, maxBatchSize: 20 });
    const nodes = fleet(cloud, prefix, 150);
    cleanup.push(
      () => cloud.stop(),
      () =>
        deleteNodes(
          cp,
          nodes.map((n) => n.metadata.name),
        ),
    );
    const ccm = startCcm({ args: nodeControllerArgs(cp, cloud, ["--node-status-update-frequency=5s"]) });
    cleanup.push(async () => void (await ccm.stop()));
    await ccm.waitForLine(/caches synced/);
    await registerAll(cp, nodes);
    const before = await eventually(
      "some nodes initialised",
      async () => {
        const initialised = (await nodesWithPrefix(cp, `${prefix}-`)).filter(done).length;
        return initialised >= 10 && initialised;
      },
      60_000,
      100,
    );
    expect(before).toBeLessThan(150);

    await cp.stopApiServer();
    await Bun.sleep(2000);
    await cp.startApiServer();

    await eventually(
      "all 150 nodes initialised after the restart",
      async () => (await nodesWithPrefix(cp, `${prefix}-`)).filter(done).length === 150,
      180_000,
      1000,
    );
    expect(ccm.proc.exitCode).toBeNull();
    expect(ccm.output()).toMatch(/nodes: list\/watch failed, retrying/);
    await expectOneSyncedEventEach(cp, prefix, nodes, 1);
    console.error(
      `[figures] API server restart: ${before} of 150 nodes initialised before it; cloud calls ${JSON.stringify(cloud.engine.calls())}`,
    );
  }, 420_000);
});
