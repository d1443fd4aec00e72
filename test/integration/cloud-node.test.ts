/**
 * cloud-node-controller against the real kube-apiserver, the CCM running as the restricted identity:
 * Nodes registered the way kubelet `--cloud-provider=external` registers them become initialised with
 * exactly the expected providerID, labels, addresses, taints and events.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { FakeInstance } from "../../providers/fake/config.ts";
import type { ControlPlane } from "../../scripts/control-plane/control-plane.ts";
import type { Node, NodeAddress } from "../../src/kube/objects.ts";
import { TAINT_UNINITIALIZED } from "../../src/kube/well-known.ts";
import { startCcm, type CcmProcess } from "../harness/ccm.ts";
import { controlPlane } from "../harness/control-plane.ts";
import { startFakeCloud, type TestFakeCloud } from "../harness/fake-cloud.ts";
import { kubeletNode, uniqueName, type KubeletNodeOptions } from "../harness/fixtures.ts";
import { eventually } from "../harness/wait.ts";
import { address, deleteNodes, getNode, isInitialised, nodeControllerArgs, nodeEvents, registerNode } from "./nodes.ts";

const ZONE_LABELS = (zone: string, region: string, type: string): Record<string, string> => ({
  "node.kubernetes.io/instance-type": type,
  "beta.kubernetes.io/instance-type": type,
  "topology.kubernetes.io/zone": zone,
  "failure-domain.beta.kubernetes.io/zone": zone,
  "topology.kubernetes.io/region": region,
  "failure-domain.beta.kubernetes.io/region": region,
});

interface Case {
  readonly title: string;
  readonly kubelet: KubeletNodeOptions;
  readonly instance: Partial<FakeInstance>;
  readonly providerID: (name: string) => string;
  readonly addresses: (name: string) => NodeAddress[];
  readonly labels: Record<string, string>;
}

const CASES: Case[] = [
  {
    title: "no provided node IP: every cloud address, the kubelet's Hostname kept, filtered extra labels",
    kubelet: {},
    instance: {
      addresses: [address("InternalIP", "10.1.0.1"), address("ExternalIP", "203.0.113.1")],
      labels: { "example.com/rack": "r1", "node.kubernetes.io/sneaky": "x" },
    },
    providerID: (name) => `fake://${name}`,
    addresses: (name) => [
      address("InternalIP", "10.1.0.1"),
      address("ExternalIP", "203.0.113.1"),
      address("Hostname", name),
    ],
    labels: { ...ZONE_LABELS("zone-a", "region-1", "fake.small"), "example.com/rack": "r1" },
  },
  {
    title: "IPv4 provided node IP: it leads, the other InternalIP is dropped, the cloud's Hostname wins",
    kubelet: { nodeIP: "10.1.0.2" },
    instance: {
      instanceType: "fake.large",
      zone: "zone-b",
      addresses: [
        address("InternalIP", "10.1.0.9"),
        address("InternalIP", "10.1.0.2"),
        address("ExternalIP", "203.0.113.2"),
        address("Hostname", "vm-2.cloud"),
      ],
    },
    providerID: (name) => `fake://${name}`,
    addresses: () => [
      address("InternalIP", "10.1.0.2"),
      address("ExternalIP", "203.0.113.2"),
      address("Hostname", "vm-2.cloud"),
    ],
    labels: ZONE_LABELS("zone-b", "region-1", "fake.large"),
  },
  {
    title: "dual-stack provided node IPs: both lead in annotation order",
    kubelet: { nodeIP: "10.1.0.3,fd00:1::3" },
    instance: {
      addresses: [
        address("InternalIP", "fd00:1::3"),
        address("InternalIP", "10.1.0.33"),
        address("InternalIP", "10.1.0.3"),
        address("ExternalIP", "2001:db8::3"),
      ],
    },
    providerID: (name) => `fake://${name}`,
    addresses: (name) => [
      address("InternalIP", "10.1.0.3"),
      address("InternalIP", "fd00:1::3"),
      address("ExternalIP", "2001:db8::3"),
      address("Hostname", name),
    ],
    labels: ZONE_LABELS("zone-a", "region-1", "fake.small"),
  },
  {
    title: "pre-set providerID: kept, and the instance is found by it",
    kubelet: { providerID: "fake://custom-id" },
    instance: { addresses: [address("InternalIP", "10.1.0.4")] },
    providerID: () => "fake://custom-id",
    addresses: (name) => [address("InternalIP", "10.1.0.4"), address("Hostname", name)],
    labels: ZONE_LABELS("zone-a", "region-1", "fake.small"),
  },
];

// Each case waits on a real API server and CCM; the 5 s default is too short on 2 busy cores.
setDefaultTimeout(60_000);

describe("cloud-node-controller", () => {
  let cp: ControlPlane;
  let cloud: TestFakeCloud;
  let ccm: CcmProcess;
  const created: string[] = [];

  const register = async (name: string, o: KubeletNodeOptions, instance?: Partial<FakeInstance>): Promise<Node> => {
    if (instance) cloud.engine.putInstance(cloud.engine.instanceWithDefaults({ name, ...instance }));
    created.push(name);
    return registerNode(cp, kubeletNode(name, o));
  };

  beforeAll(async () => {
    cp = await controlPlane();
    // Single-node calls here (batching off): upstream's path; the batched path has its own tests below.
    cloud = startFakeCloud("", { batching: false });
    ccm = startCcm({ args: nodeControllerArgs(cp, cloud, ["--node-status-update-frequency=2s"]) });
    await ccm.waitForLine(/started 2 controller\(s\)/);
  });

  afterAll(async () => {
    await ccm?.stop();
    await deleteNodes(cp, created);
    await cloud?.stop();
  }, 60_000);

  for (const c of CASES) {
    test(`initialises a kubelet-registered node — ${c.title}`, async () => {
      const name = uniqueName("init");
      const providerID = c.providerID(name);
      await register(name, c.kubelet, { ...c.instance, providerID });
      const node = await eventually(`node ${name} initialised`, async () => {
        const n = await getNode(cp, name);
        return isInitialised(n) && n?.status?.addresses?.length === c.addresses(name).length && n;
      });
      expect(node.spec?.providerID).toBe(providerID);
      expect(node.spec?.taints ?? []).toEqual([]);
      expect(node.metadata.labels).toEqual({ ...kubeletNode(name).metadata.labels, ...c.labels });
      expect(node.status?.addresses).toEqual(c.addresses(name));
      const events = await eventually(`Synced event for ${name}`, async () => {
        const e = await nodeEvents(cp, name);
        return e.length > 0 && e;
      });
      expect(events.map((e) => [e.type, e.reason, e.message, e.source.component, e.count])).toEqual([
        ["Normal", "Synced", "Node synced successfully", "cloud-node-controller", 1],
      ]);
    });
  }

  test("a provided node IP the cloud does not report blocks initialisation until the cloud reports it", async () => {
    const name = uniqueName("nodeip");
    await register(name, { nodeIP: "10.1.0.50" }, { addresses: [address("InternalIP", "10.1.0.5")] });
    await ccm.waitForLine(
      new RegExp(
        `provided node ip for node "${name}" is not valid: failed to get node address from cloud provider that matches ip: 10\\.1\\.0\\.50`,
      ),
    );
    await Bun.sleep(1500);
    const blocked = await getNode(cp, name);
    expect(blocked?.spec?.taints?.map((t) => t.key)).toEqual([TAINT_UNINITIALIZED]);
    expect(blocked?.spec?.providerID).toBeUndefined();
    expect(await nodeEvents(cp, name)).toEqual([]);

    cloud.engine.putInstance(
      cloud.engine.instanceWithDefaults({
        name,
        addresses: [address("InternalIP", "10.1.0.5"), address("InternalIP", "10.1.0.50")],
      }),
    );
    const node = await eventually(`node ${name} initialised once the cloud reports its IP`, async () => {
      const n = await getNode(cp, name);
      return isInitialised(n) && n?.status?.addresses?.length === 2 && n;
    });
    expect(node.status?.addresses).toEqual([address("InternalIP", "10.1.0.50"), address("Hostname", name)]);
  });

  test("an instance that does not exist keeps the node tainted and without providerID", async () => {
    const name = uniqueName("noinstance");
    // Ready, so the lifecycle controller (also running) leaves it alone.
    await register(name, { ready: true });
    await ccm.waitForLine(new RegExp(`error syncing "${name}": no instance for node ${name}`));
    const node = await getNode(cp, name);
    expect(node?.spec?.taints?.map((t) => t.key)).toEqual([TAINT_UNINITIALIZED]);
    expect(node?.spec?.providerID).toBeUndefined();
  });

  test("an instance the cloud learns of late: the Node is initialised at the next refresh, not after the backoff", async () => {
    const name = uniqueName("late");
    await register(name, { ready: true });
    await ccm.waitForLine(new RegExp(`error syncing "${name}": no instance for node ${name}`));
    // 12 s of failed attempts: the per-item backoff (5 ms doubling) has the next one about 8 s away.
    await Bun.sleep(12_000);
    cloud.engine.putInstance(cloud.engine.instanceWithDefaults({ name }));
    // Upstream retries at the Node's next status report; here the 2 s refresh queues it again.
    await eventually(`node ${name} initialised`, async () => isInitialised(await getNode(cp, name)), 5000);
  }, 60_000);

  test("initialised nodes: the GA labels follow the beta ones, GA-only labels are left alone", async () => {
    const name = uniqueName("labels");
    await register(
      name,
      {
        uninitialized: false,
        providerID: `fake://${name}`,
        labels: {
          "failure-domain.beta.kubernetes.io/zone": "zone-z",
          "beta.kubernetes.io/instance-type": "old",
          "node.kubernetes.io/instance-type": "new",
          "topology.kubernetes.io/region": "ga-only",
        },
      },
      {},
    );
    const node = await eventually(`GA labels on ${name}`, async () => {
      const n = await getNode(cp, name);
      return n?.metadata.labels?.["topology.kubernetes.io/zone"] === "zone-z" && n;
    });
    expect(node.metadata.labels).toEqual({
      ...kubeletNode(name).metadata.labels,
      "failure-domain.beta.kubernetes.io/zone": "zone-z",
      "topology.kubernetes.io/zone": "zone-z",
      "beta.kubernetes.io/instance-type": "old",
      "node.kubernetes.io/instance-type": "old",
      "topology.kubernetes.io/region": "ga-only",
    });
  });

  test("the periodic refresh (--node-status-update-frequency) follows the cloud's addresses", async () => {
    const name = uniqueName("refresh");
    await register(name, { nodeIP: "10.1.0.7" }, { addresses: [address("InternalIP", "10.1.0.7")] });
    await eventually(`node ${name} initialised`, async () => isInitialised(await getNode(cp, name)));
    cloud.engine.putInstance(
      cloud.engine.instanceWithDefaults({
        name,
        addresses: [
          address("ExternalIP", "203.0.113.7"),
          address("InternalIP", "10.1.0.7"),
          address("InternalIP", "10.1.0.77"),
        ],
      }),
    );
    const node = await eventually(`new addresses on ${name}`, async () => {
      const n = await getNode(cp, name);
      return n?.status?.addresses?.some((a) => a.type === "ExternalIP") && n;
    });
    expect(node.status?.addresses).toEqual([
      address("InternalIP", "10.1.0.7"),
      address("ExternalIP", "203.0.113.7"),
      address("Hostname", name),
    ]);
  });
});
