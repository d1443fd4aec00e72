/**
 * node-route-controller against a real kube-apiserver, as the restricted identity, with the fake cloud
 * served by this test. Pod CIDRs are set through the admin identity, as kube-controller-manager's IPAM
 * would.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { NODES, type KubeApi } from "../../src/kube/api.ts";
import type { Node, NodeCondition } from "../../src/kube/objects.ts";
import type { ControlPlane } from "../../scripts/control-plane/control-plane.ts";
import type { FakeRoute } from "../../providers/fake/wire.ts";
import { startCcm, type CcmProcess, managerFlags } from "../harness/ccm.ts";
import { controlPlane } from "../harness/control-plane.ts";
import { startFakeCloud, type TestFakeCloud } from "../harness/fake-cloud.ts";
import { kubeletNode, uniqueName } from "../harness/fixtures.ts";
import { eventually } from "../harness/wait.ts";
import { createNode, deleteNodes, INTEGRATION_TIMEOUT_MS, startController } from "./support.ts";

const CONTROLLER = "node-route-controller";
const TIMEOUT_MS = INTEGRATION_TIMEOUT_MS;
/** Pod CIDRs of this file only, so nodes other test files leave behind never collide with ours. */
const CLUSTER_CIDR = "10.201.0.0/16,fd00:201::/48";

let cp: ControlPlane;
let admin: KubeApi;
let cloud: TestFakeCloud;
const nodeNames: string[] = [];
let subnet = 0;

beforeAll(async () => {
  cp = await controlPlane();
  admin = cp.admin;
  cloud = startFakeCloud("autoInstances: true");
}, TIMEOUT_MS);

afterAll(async () => {
  await deleteNodes(admin, nodeNames);
  await cloud.stop();
}, TIMEOUT_MS);

function nextPodCIDRs(): { v4: string; v6: string } {
  subnet += 1;
  return { v4: `10.201.${subnet}.0/24`, v6: `fd00:201:0:${subnet.toString(16)}::/64` };
}

async function addNode(podCIDRs?: string[]): Promise<string> {
  const name = uniqueName("route-node");
  nodeNames.push(name);
  await createNode(admin, kubeletNode(name, { uninitialized: false, providerID: `fake://${name}`, podCIDRs }));
  return name;
}

/** What node-ipam does: podCIDR(s) set once on a Node that had none. */
async function assignPodCIDRs(name: string, cidrs: string[]): Promise<void> {
  await admin.patch(NODES, name, { spec: { podCIDR: cidrs[0], podCIDRs: cidrs } }, { type: "merge" });
}

const routesTo = (name: string): FakeRoute[] => cloud.engine.routes().filter((r) => r.targetNode === name);
const cidrsTo = (name: string): string[] =>
  routesTo(name)
    .map((r) => r.destinationCIDR)
    .sort();

async function networkCondition(name: string): Promise<NodeCondition | undefined> {
  const node = await admin.get<Node>(NODES, name);
  return node.status?.conditions?.find((c) => c.type === "NetworkUnavailable");
}

async function routeCreated(name: string): Promise<NodeCondition> {
  return eventually(`NetworkUnavailable=False on ${name}`, async () => {
    const condition = await networkCondition(name);
    return condition?.status === "False" && condition.reason === "RouteCreated" ? condition : undefined;
  });
}

describe("node-route-controller, reacting to Node events", () => {
  let ccm: CcmProcess;
  beforeAll(async () => {
    cloud.engine.resetCalls();
    ccm = await startController(cp, cloud, CONTROLLER, [
      `--cluster-cidr=${CLUSTER_CIDR}`,
      "--route-reconciliation-period=1h",
    ]);
  }, TIMEOUT_MS);
  afterAll(async () => {
    expect(await ccm.stop()).toBe(0);
    expect(ccm.output()).not.toMatch(/forbidden/i);
  }, TIMEOUT_MS);

  test(
    "pod CIDRs assigned later get a route and NetworkUnavailable=False, without listing the cloud again",
    async () => {
      const { v4 } = nextPodCIDRs();
      const name = await addNode();
      await eventually("the first listing", () => (cloud.engine.calls().ListRoutes ?? 0) >= 1);
      expect(routesTo(name)).toEqual([]);
      await assignPodCIDRs(name, [v4]);
      await eventually(`route to ${name}`, () => cidrsTo(name).join() === v4);
      const condition = await routeCreated(name);
      expect(condition.message).toBe("RouteController created a route");
      expect(cloud.engine.calls().ListRoutes).toBe(1);
    },
    TIMEOUT_MS,
  );

  test(
    "a dual-stack node gets one route per family",
    async () => {
      const { v4, v6 } = nextPodCIDRs();
      const name = await addNode([v4, v6]);
      await eventually(`two routes to ${name}`, () => cidrsTo(name).length === 2);
      expect(cidrsTo(name)).toEqual([v4, v6].sort());
      await routeCreated(name);
    },
    TIMEOUT_MS,
  );

  test(
    "a deleted node's route is removed",
    async () => {
      const { v4 } = nextPodCIDRs();
      const name = await addNode([v4]);
      await eventually(`route to ${name}`, () => cidrsTo(name).length === 1);
      await admin.delete(NODES, name);
      await eventually(`route to ${name} removed`, () => cidrsTo(name).length === 0);
      expect(cloud.engine.calls().ListRoutes).toBe(1);
    },
    TIMEOUT_MS,
  );
});

describe("node-route-controller, full reconcile every period", () => {
  let ccm: CcmProcess;
  beforeAll(async () => {
    ccm = await startController(cp, cloud, CONTROLLER, [
      `--cluster-cidr=${CLUSTER_CIDR}`,
      "--route-reconciliation-period=1s",
    ]);
  }, TIMEOUT_MS);
  afterAll(async () => {
    expect(await ccm.stop()).toBe(0);
  }, TIMEOUT_MS);

  test(
    "a blackhole inside the cluster CIDR is deleted in the same pass that leaves a route outside it alone",
    async () => {
      const outside: FakeRoute = {
        name: uniqueName("foreign"),
        clusterName: "kubernetes",
        targetNode: "elsewhere",
        destinationCIDR: "10.99.0.0/24",
        blackhole: false,
      };
      const blackhole: FakeRoute = {
        name: uniqueName("dead"),
        clusterName: "kubernetes",
        targetNode: "ghost",
        destinationCIDR: "10.201.250.0/24",
        blackhole: true,
      };
      cloud.engine.putRoute(outside);
      cloud.engine.putRoute(blackhole);
      await eventually("blackhole deleted", () => !cloud.engine.routes().some((r) => r.name === blackhole.name));
      expect(cloud.engine.routes().find((r) => r.name === outside.name)).toEqual(outside);
    },
    TIMEOUT_MS,
  );

  test(
    "a route deleted behind the controller's back is created again",
    async () => {
      const { v4 } = nextPodCIDRs();
      const name = await addNode([v4]);
      const [route] = await eventually(`route to ${name}`, () =>
        routesTo(name).length === 1 ? routesTo(name) : undefined,
      );
      await cloud.engine.call("DeleteRoute", { name: route!.name });
      expect(routesTo(name)).toEqual([]);
      await eventually(`route to ${name} restored`, () => cidrsTo(name).join() === v4);
    },
    TIMEOUT_MS,
  );
});

describe("node-route-controller start rules", () => {
  const run = (flags: readonly string[]): CcmProcess =>
    startCcm({
      args: [...managerFlags(cp.kubeconfigs.ccm, "fake", cloud.configFile), `--controllers=${CONTROLLER}`, ...flags],
    });

  test.each([
    { name: "no --cluster-cidr", flags: [], value: '""' },
    { name: "two IPv4 CIDRs", flags: ["--cluster-cidr=10.1.0.0/16,10.2.0.0/16"], value: '"10.1.0.0/16,10.2.0.0/16"' },
    {
      name: "three CIDRs",
      flags: ["--cluster-cidr=10.1.0.0/16,fd00:1::/48,fd00:2::/48"],
      value: '"10.1.0.0/16,fd00:1::/48,fd00:2::/48"',
    },
  ])(
    "$name: exit status 2 and one line naming the flag",
    async ({ flags, value }) => {
      const ccm = run(flags);
      expect(await ccm.exited).toBe(2);
      const lines = ccm.lines.filter((l) => l.includes("--cluster-cidr"));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`invalid value ${value} for flag --cluster-cidr`);
      expect(ccm.output()).not.toMatch(/started \d+ controller/);
    },
    TIMEOUT_MS,
  );

  test(
    "--configure-cloud-routes=false: skipped, the manager runs on",
    async () => {
      const ccm = run(["--configure-cloud-routes=false"]);
      await ccm.waitForLine(/skipping "node-route-controller": --configure-cloud-routes=false/);
      await ccm.waitForLine(/started 0 controller\(s\)/);
      expect(await ccm.stop()).toBe(0);
    },
    TIMEOUT_MS,
  );
});
