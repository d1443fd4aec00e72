import { describe, expect, test } from "bun:test";
import { kubeletNode, type KubeletNodeOptions } from "../../../test/harness/fixtures.ts";
import type { InstanceMetadata } from "../../cloud/provider.ts";
import type { Node, NodeAddress, Taint } from "../../kube/objects.ts";
import { TAINT_UNINITIALIZED } from "../../kube/well-known.ts";
import { planAddresses, planInitialization, planLabelReconcile, type InitPlan } from "./plan.ts";

const md = (o: Partial<InstanceMetadata> = {}): InstanceMetadata => ({
  providerID: "fake://node-a",
  instanceType: "fake.large",
  zone: "zone-b",
  region: "region-2",
  nodeAddresses: [],
  ...o,
});

const node = (o: KubeletNodeOptions & { taints?: Taint[]; addresses?: NodeAddress[] } = {}): Node => {
  const n = kubeletNode("node-a", o);
  if (o.taints) n.spec = { ...n.spec, taints: o.taints };
  if (o.addresses) n.status = { ...n.status, addresses: o.addresses };
  return n;
};

const addr = (type: NodeAddress["type"], address: string): NodeAddress => ({ type, address });

const ALL_LABELS = {
  "node.kubernetes.io/instance-type": "fake.large",
  "beta.kubernetes.io/instance-type": "fake.large",
  "topology.kubernetes.io/zone": "zone-b",
  "failure-domain.beta.kubernetes.io/zone": "zone-b",
  "topology.kubernetes.io/region": "region-2",
  "failure-domain.beta.kubernetes.io/region": "region-2",
};

describe("planInitialization", () => {
  const table: { name: string; node: Node; metadata: InstanceMetadata; want: InitPlan | RegExp }[] = [
    {
      name: "a fresh node gets providerID, GA and beta labels, and loses the taint",
      node: node(),
      metadata: md(),
      want: {
        patch: { metadata: { labels: ALL_LABELS }, spec: { providerID: "fake://node-a", taints: [] } },
        discarded: [],
      },
    },
    {
      name: "a pre-set providerID is never changed, even when the cloud reports another",
      node: node({ providerID: "fake://custom" }),
      metadata: md({ providerID: "fake://other" }),
      want: { patch: { metadata: { labels: ALL_LABELS }, spec: { taints: [] } }, discarded: [] },
    },
    {
      name: "no providerID from the cloud is fine when the node has one",
      node: node({ providerID: "fake://custom" }),
      metadata: md({ providerID: "", instanceType: "", zone: "", region: "" }),
      want: { patch: { spec: { taints: [] } }, discarded: [] },
    },
    {
      name: "no providerID anywhere refuses, taint kept",
      node: node(),
      metadata: md({ providerID: "" }),
      want: /cloud provider does not set node provider ID for node node-a/,
    },
    {
      name: "empty instance type, zone and region set no labels",
      node: node(),
      metadata: md({ instanceType: "", region: "" }),
      want: {
        patch: {
          metadata: {
            labels: { "topology.kubernetes.io/zone": "zone-b", "failure-domain.beta.kubernetes.io/zone": "zone-b" },
          },
          spec: { providerID: "fake://node-a", taints: [] },
        },
        discarded: [],
      },
    },
    {
      name: "additional labels: kubernetes.io / k8s.io keys and conflicting values are discarded, the rest set",
      node: node({ labels: { "example.com/rack": "r1", "example.com/team": "a" } }),
      metadata: md({
        instanceType: "",
        zone: "",
        region: "",
        additionalLabels: {
          "k8s.io/x": "1",
          "node.kubernetes.io/y": "2",
          "kubernetes.io/z": "3",
          "notkubernetes.io/ok": "4",
          "example.com/rack": "r1",
          "example.com/team": "b",
          "example.com/new": "5",
        },
      }),
      want: {
        patch: {
          metadata: { labels: { "notkubernetes.io/ok": "4", "example.com/new": "5" } },
          spec: { providerID: "fake://node-a", taints: [] },
        },
        discarded: [
          "discarding node label k8s.io/x with kubernetes prefix",
          "discarding node label node.kubernetes.io/y with kubernetes prefix",
          "discarding node label kubernetes.io/z with kubernetes prefix",
          "discarding node label example.com/team with value b, node already has value a",
        ],
      },
    },
    {
      name: "every uninitialized taint goes, whatever its effect; other taints stay",
      node: node({
        taints: [
          { key: TAINT_UNINITIALIZED, value: "true", effect: "NoSchedule" },
          { key: "example.com/dedicated", value: "db", effect: "NoExecute" },
          { key: TAINT_UNINITIALIZED, effect: "NoExecute" },
        ],
      }),
      metadata: md({ instanceType: "", zone: "", region: "" }),
      want: {
        patch: {
          spec: {
            providerID: "fake://node-a",
            taints: [{ key: "example.com/dedicated", value: "db", effect: "NoExecute" }],
          },
        },
        discarded: [],
      },
    },
    {
      name: "a provided node IP the cloud reports passes",
      node: node({ nodeIP: "10.0.0.1" }),
      metadata: md({ instanceType: "", zone: "", region: "", nodeAddresses: [addr("InternalIP", "10.0.0.1")] }),
      want: { patch: { spec: { providerID: "fake://node-a", taints: [] } }, discarded: [] },
    },
    {
      name: "a provided node IP the cloud does not report refuses, taint kept",
      node: node({ nodeIP: "10.0.0.2" }),
      metadata: md({ nodeAddresses: [addr("InternalIP", "10.0.0.1")] }),
      want: /provided node ip for node "node-a" is not valid: failed to get node address from cloud provider that matches ip: 10\.0\.0\.2/,
    },
    {
      name: "an unparsable provided node IP refuses",
      node: node({ nodeIP: "10.0.0.1,10.0.0.2" }),
      metadata: md({ nodeAddresses: [addr("InternalIP", "10.0.0.1"), addr("InternalIP", "10.0.0.2")] }),
      want: /not valid: failed to parse node IP "10\.0\.0\.1,10\.0\.0\.2": must contain either a single IP or a dual-stack pair/,
    },
  ];
  for (const row of table) {
    test(row.name, () => {
      const got = planInitialization(row.node, row.metadata);
      if (row.want instanceof RegExp) expect(got.ok ? "planned" : got.error).toMatch(row.want);
      else expect(got).toEqual({ ok: true, value: row.want });
    });
  }
});

describe("planAddresses", () => {
  const initialised = (o: KubeletNodeOptions & { addresses?: NodeAddress[] } = {}): Node =>
    node({ ...o, uninitialized: false });
  const table: { name: string; node: Node; cloud: NodeAddress[]; want: NodeAddress[] | undefined | RegExp }[] = [
    {
      name: "a node still initialising is left to syncNode",
      node: node(),
      cloud: [addr("InternalIP", "10.0.0.1")],
      want: undefined,
    },
    { name: "no cloud addresses: nothing written", node: initialised(), cloud: [], want: undefined },
    {
      name: "the node's own Hostname is kept when the cloud has none",
      node: initialised({ nodeIP: "10.0.0.1" }),
      cloud: [addr("InternalIP", "10.0.0.1"), addr("ExternalIP", "203.0.113.5")],
      want: [addr("InternalIP", "10.0.0.1"), addr("ExternalIP", "203.0.113.5"), addr("Hostname", "node-a")],
    },
    {
      name: "the cloud's Hostname wins over the node's",
      node: initialised(),
      cloud: [addr("InternalIP", "10.0.0.1"), addr("Hostname", "node-a.cloud")],
      want: [addr("InternalIP", "10.0.0.1"), addr("Hostname", "node-a.cloud")],
    },
    {
      name: "the provided node IP filters and leads (dual-stack)",
      node: initialised({ nodeIP: "10.0.0.1,fd00::1" }),
      cloud: [
        addr("InternalIP", "10.0.0.9"),
        addr("InternalIP", "fd00::1"),
        addr("ExternalIP", "203.0.113.5"),
        addr("InternalIP", "10.0.0.1"),
        addr("Hostname", "node-a"),
      ],
      want: [
        addr("InternalIP", "10.0.0.1"),
        addr("InternalIP", "fd00::1"),
        addr("ExternalIP", "203.0.113.5"),
        addr("Hostname", "node-a"),
      ],
    },
    {
      name: "unchanged addresses: nothing written",
      node: initialised({ addresses: [addr("InternalIP", "10.0.0.1"), addr("Hostname", "node-a")] }),
      cloud: [addr("InternalIP", "10.0.0.1"), addr("Hostname", "node-a")],
      want: undefined,
    },
    {
      name: "a reordered list is a change (upstream's per-type compare would miss it)",
      node: initialised({
        addresses: [addr("InternalIP", "10.0.0.2"), addr("InternalIP", "10.0.0.1"), addr("Hostname", "node-a")],
      }),
      cloud: [addr("InternalIP", "10.0.0.1"), addr("InternalIP", "10.0.0.2"), addr("Hostname", "node-a")],
      want: [addr("InternalIP", "10.0.0.1"), addr("InternalIP", "10.0.0.2"), addr("Hostname", "node-a")],
    },
    {
      name: "a node IP the cloud lost is an error, nothing written",
      node: initialised({ nodeIP: "10.0.0.1" }),
      cloud: [addr("InternalIP", "10.0.0.3")],
      want: /matches ip: 10\.0\.0\.1/,
    },
  ];
  for (const row of table) {
    test(row.name, () => {
      const got = planAddresses(row.node, md({ nodeAddresses: row.cloud }));
      if (row.want instanceof RegExp) expect(got.ok ? "planned" : got.error).toMatch(row.want);
      else expect(got).toEqual({ ok: true, value: row.want });
    });
  }
});

describe("planLabelReconcile", () => {
  const table: { name: string; labels: Record<string, string>; want: Record<string, string> | undefined }[] = [
    {
      name: "beta only: GA copied",
      labels: { "failure-domain.beta.kubernetes.io/zone": "a" },
      want: { "topology.kubernetes.io/zone": "a" },
    },
    {
      name: "GA differs: GA takes the beta value",
      labels: { "beta.kubernetes.io/instance-type": "big", "node.kubernetes.io/instance-type": "small" },
      want: { "node.kubernetes.io/instance-type": "big" },
    },
    { name: "GA only: left alone", labels: { "topology.kubernetes.io/region": "r" }, want: undefined },
    {
      name: "both equal: nothing",
      labels: { "failure-domain.beta.kubernetes.io/region": "r", "topology.kubernetes.io/region": "r" },
      want: undefined,
    },
    {
      name: "all three pairs at once",
      labels: {
        "failure-domain.beta.kubernetes.io/zone": "z",
        "failure-domain.beta.kubernetes.io/region": "r",
        "beta.kubernetes.io/instance-type": "t",
      },
      want: {
        "topology.kubernetes.io/zone": "z",
        "topology.kubernetes.io/region": "r",
        "node.kubernetes.io/instance-type": "t",
      },
    },
  ];
  for (const row of table) {
    test(row.name, () => {
      expect(planLabelReconcile(node({ uninitialized: false, labels: row.labels }))).toEqual(row.want);
    });
  }
});
