import { describe, expect, test } from "bun:test";
import type { KubeObject } from "../../../src/kube/objects.ts";
import { readPools, type AddressPoolObject } from "./cluster-pools.ts";
import { importPools } from "./import.ts";
import { KUBE_VIP_YAML, METALLB_YAML } from "./import.fixtures.test-support.ts";

/** Every document of a YAML stream (one document parses as itself, several as an array). */
const docs = (yaml: string): unknown[] => [Bun.YAML.parse(yaml)].flat();

const specs = (yaml: string): Record<string, unknown> => {
  const { pools } = importPools(docs(yaml));
  return Object.fromEntries(pools.map((p) => [p.metadata.name, (p as AddressPoolObject).spec]));
};

describe("import from MetalLB", () => {
  test("IPAddressPools become AddressPools: addresses, autoAssign, avoidBuggyIPs, serviceAllocation", () => {
    expect(specs(METALLB_YAML)).toEqual({
      cheap: { addresses: ["192.168.10.0/24", "fc00:f853:0ccd:e799::/124"] },
      expensive: { addresses: ["42.176.25.64/30"], autoAssign: false, avoidBuggyIPs: true },
      tenant: {
        addresses: ["192.168.20.10-192.168.20.50"],
        priority: 50,
        namespaces: ["namespace-a"],
        namespaceSelectors: [{ matchLabels: { foo: "bar" } }],
      },
      pinned: {
        addresses: ["192.168.30.0/28"],
        serviceSelectors: [{ matchExpressions: [{ key: "app", operator: "In", values: ["bar"] }] }],
      },
    });
  });

  test("what has no equivalent is a note: advertisements; pools are cluster-scoped", () => {
    const { pools, notes } = importPools(docs(METALLB_YAML));
    expect(notes.join("\n")).not.toContain("serviceSelectors");
    expect(notes.join("\n")).toContain("L2Advertisement example (pools cheap, expensive)");
    expect(pools.every((p) => p.metadata.namespace === undefined)).toBe(true);
  });

  test("the imported pools read as valid pools, none overlapping", () => {
    const { pools } = importPools(docs(METALLB_YAML));
    const read = readPools(pools);
    expect(read.map((r) => r.problems)).toEqual([[], [], [], []]);
  });

  test("a kubectl List dump is read item by item", () => {
    const list = { apiVersion: "v1", kind: "List", items: docs(METALLB_YAML) };
    expect(importPools([list]).pools).toHaveLength(4);
  });
});

describe("import from kube-vip", () => {
  test("cidr-<ns> and range-<ns> join in one pool per namespace; cidr/range-global serve every namespace", () => {
    expect(specs(KUBE_VIP_YAML)).toEqual({
      "kubevip-default": { addresses: ["192.168.0.200/29"], namespaces: ["default"], avoidBuggyIPs: true },
      "kubevip-development": {
        addresses: ["192.168.0.210/29", "192.168.0.220/29", "192.168.0.230-192.168.0.234"],
        namespaces: ["development"],
        avoidBuggyIPs: true,
        implicitSharing: true,
      },
      "kubevip-global": { addresses: ["192.168.1.220-192.168.1.230"], avoidBuggyIPs: true },
    });
  });

  test("search-order: desc hands out the highest address first, in every pool", () => {
    const configMap = {
      kind: "ConfigMap",
      metadata: { name: "kubevip" },
      data: { "search-order": "desc", "cidr-global": "10.0.0.0/30" },
    };
    expect(importPools([configMap])).toMatchObject({
      pools: [{ spec: { addresses: ["10.0.0.0/30"], avoidBuggyIPs: true, allocationOrder: "Descending" } }],
      notes: [],
    });
  });

  test("skip-end-ips-in-cidr: true: each IPv4 CIDR of a cidr- key (but a /31 or /32) loses its first and last address", () => {
    const data = {
      "skip-end-ips-in-cidr": "true",
      "cidr-global": "10.0.0.0/29,10.0.1.0/31,10.0.2.7/32,fd00::/126",
      "range-team": "10.0.3.0-10.0.3.9",
    };
    expect(importPools([{ kind: "ConfigMap", metadata: { name: "kubevip" }, data }])).toMatchObject({
      pools: [
        { spec: { addresses: ["10.0.0.1-10.0.0.6", "10.0.1.0/31", "10.0.2.7/32", "fd00::/126"] } },
        { spec: { addresses: ["10.0.3.0-10.0.3.9"] } },
      ],
      notes: [],
    });
  });

  test("allow-share-<ns> without a pool of that namespace is a note", () => {
    const configMap = { kind: "ConfigMap", metadata: { name: "kubevip" }, data: { "allow-share-prod": "true" } };
    expect(importPools([configMap])).toEqual({
      pools: [],
      notes: ["kubevip allow-share-prod: no cidr-prod or range-prod pool to share addresses of, ignored"],
    });
  });

  /** Each case: the allow-share keys, the pools that share (of kubevip-team and kubevip-global), the notes. */
  const shareCases: [string, Record<string, string>, string[], string[]?][] = [
    ["own key", { "allow-share-team": "true" }, ["team"]],
    ["global key, for every namespace", { "allow-share-global": "true" }, ["team", "global"]],
    ["own key hides the global one", { "allow-share-global": "true", "allow-share-team": "false" }, ["global"]],
    ["ParseBool's spellings", { "allow-share-team": "True", "allow-share-global": "1" }, ["team", "global"]],
    ["ParseBool's false spellings", { "allow-share-team": "F", "allow-share-global": "TRUE" }, ["global"]],
    [
      "a value ParseBool refuses: no sharing, a note",
      { "allow-share-team": "yes", "allow-share-global": "true" },
      ["global"],
      ['kubevip allow-share-team: "yes" is not a boolean (as Go\'s ParseBool reads), so no sharing'],
    ],
  ];
  test.each(shareCases)("allow-share: %s", (_name, keys, sharing, notes = []) => {
    const data = { "cidr-team": "10.0.0.0/24", "cidr-global": "10.1.0.0/24", ...keys };
    const got = importPools([{ kind: "ConfigMap", metadata: { name: "kubevip" }, data }]);
    const shares = (p: KubeObject): boolean => (p as AddressPoolObject).spec?.implicitSharing === true;
    expect(got.pools.filter(shares).map((p) => p.metadata.name)).toEqual(sharing.map((ns) => `kubevip-${ns}`));
    expect(got.notes).toEqual(notes);
  });

  test("other objects are ignored with a note", () => {
    const { pools, notes } = importPools([{ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "other" } }]);
    expect(pools).toEqual([]);
    expect(notes).toEqual(["ConfigMap other: not a MetalLB pool or the kubevip ConfigMap, ignored"]);
  });
});
