import { describe, expect, test } from "bun:test";
import { parseBaremetalConfig } from "./config.ts";
import { LABEL_RACK } from "./inventory.ts";

const EXAMPLE = `
inventory:
  defaults: { region: dc1, instanceType: metal, labels: { example.com/owner: infra } }
  zones: [{ name: dc1-b, region: dc1-south }]
  racks:
    - { name: r1, zone: dc1-a, labels: { example.com/power: feed-a } }
    - { name: r2, zone: dc1-b, instanceType: metal.large }
  machines:
    - { name: worker-1, rack: r1, addresses: [{ type: InternalIP, address: 10.0.0.11 }, { type: Hostname, address: worker-1 }] }
    - { name: worker-2, rack: r2, providerID: "baremetal://serial-0042", labels: { example.com/power: feed-b } }
    - { pattern: "edge-*", rack: r1 }
    - { name: old-3, decommissioned: true }
    - { name: db-1, shutdown: true, zone: dc1-c }
  unmatchedNodes: leave
loadBalancers:
  pools:
    - { name: public, addresses: [203.0.113.0/28, "198.51.100.10-198.51.100.20", "2001:db8::/124"], priority: 10 }
    - { name: team-a, namespaces: [team-a], addresses: [10.10.0.0/24], priority: 20 }
    - { name: reserved, addresses: [203.0.113.100], autoAssign: false }
  sharingAnnotation: metallb.universe.tf/allow-shared-ip
`;

describe("cloud-config", () => {
  test("the documented example parses, with traits layered from defaults to machine", () => {
    const parsed = parseBaremetalConfig(EXAMPLE);
    if (!parsed.ok) throw new Error(parsed.errors.join("\n"));
    const inv = parsed.config.inventory;
    expect(inv.byName.get("worker-1")).toMatchObject({
      zone: "dc1-a",
      region: "dc1",
      instanceType: "metal",
      labels: { "example.com/owner": "infra", "example.com/power": "feed-a", [LABEL_RACK]: "r1" },
      addresses: [
        { type: "InternalIP", address: "10.0.0.11" },
        { type: "Hostname", address: "worker-1" },
      ],
    });
    expect(inv.byName.get("worker-2")).toMatchObject({
      zone: "dc1-b",
      region: "dc1-south",
      instanceType: "metal.large",
      labels: { "example.com/power": "feed-b" },
    });
    expect(inv.byProviderID.get("baremetal://serial-0042")?.name).toBe("worker-2");
    expect(inv.patterns[0]?.pattern?.test("edge-17")).toBe(true);
    expect(inv.patterns[0]?.pattern?.test("xedge-17")).toBe(false);
    expect(inv.byName.get("old-3")?.decommissioned).toBe(true);
    expect(inv.byName.get("db-1")).toMatchObject({ shutdown: true, zone: "dc1-c", region: "dc1" });
  });

  test("the documented example's pools and annotations", () => {
    const parsed = parseBaremetalConfig(EXAMPLE);
    const lbs = parsed.ok ? parsed.config.loadBalancers : undefined;
    expect(lbs?.pools.map((p) => [p.name, p.ranges.length, p.priority, p.autoAssign])).toEqual([
      ["public", 3, 10, true],
      ["team-a", 1, 20, true],
      ["reserved", 1, undefined, false],
    ]);
    expect(lbs?.sharingAnnotation).toBe("metallb.universe.tf/allow-shared-ip");
    expect(lbs?.announceAnnotations).toEqual(["kube-vip.io/loadbalancerIPs"]);
  });

  test("no cloud-config: an empty inventory that leaves every node alone, and no load balancers", () => {
    const parsed = parseBaremetalConfig(undefined);
    expect(parsed.ok && parsed.config.inventory.unmatchedNodes).toBe("leave");
    expect(parsed.ok && parsed.config.loadBalancers).toBeUndefined();
  });

  const broken: [string, string, RegExp][] = [
    ["not YAML", "inventory: [", /^not valid YAML or JSON/],
    ["not a mapping", "- a\n- b", /must be a YAML or JSON mapping/],
    ["unknown top-level field", "pools: []", /^pools: unknown field \(known: inventory, loadBalancers\)$/],
    [
      "a machine with neither name nor pattern",
      "inventory: { machines: [{ rack: r1 }] }",
      /inventory.machines\[0\]: must have exactly one of name/,
    ],
    [
      "a machine with both",
      "inventory: { machines: [{ name: a, pattern: 'a*' }] }",
      /inventory.machines\[0\]: must have exactly one of name/,
    ],
    [
      "a bad node name",
      "inventory: { machines: [{ name: Worker_1 }] }",
      /inventory.machines\[0\].name: "Worker_1" is not a valid node name/,
    ],
    [
      "a bad pattern",
      "inventory: { machines: [{ pattern: 'edge-[0-9]' }] }",
      /inventory.machines\[0\].pattern: .* may hold only/,
    ],
    [
      "addresses on a pattern",
      "inventory: { machines: [{ pattern: 'e*', addresses: [] }] }",
      /inventory.machines\[0\].addresses: belongs to one machine/,
    ],
    [
      "providerID on a pattern",
      "inventory: { machines: [{ pattern: 'e*', providerID: 'x://y' }] }",
      /inventory.machines\[0\].providerID: belongs to one machine/,
    ],
    [
      "an unknown rack",
      "inventory: { machines: [{ name: a, rack: r9 }] }",
      /inventory.machines\[0\].rack: no rack named "r9" in inventory.racks/,
    ],
    [
      "a bad address",
      "inventory: { machines: [{ name: a, addresses: [{ type: InternalIP, address: 10.0.0.300 }] }] }",
      /addresses\[0\].address: "10.0.0.300" is not an IP address/,
    ],
    [
      "a bad address type",
      "inventory: { machines: [{ name: a, addresses: [{ type: PublicIP, address: 10.0.0.3 }] }] }",
      /addresses\[0\]: must be \{type: InternalIP\|ExternalIP/,
    ],
    [
      "a twice-listed machine",
      "inventory: { machines: [{ name: a }, { name: a }] }",
      /inventory.machines\[1\].name: "a" is listed twice/,
    ],
    [
      "a shared providerID",
      "inventory: { machines: [{ name: a, providerID: 'baremetal://b' }, { name: b }] }",
      /inventory.machines\[1\]: providerID "baremetal:\/\/b" is used by two machines/,
    ],
    [
      "a malformed providerID",
      "inventory: { machines: [{ name: a, providerID: serial-1 }] }",
      /providerID: "serial-1" is not of the form <scheme>:\/\/<id>/,
    ],
    [
      "decommissioned and shut down",
      "inventory: { machines: [{ name: a, decommissioned: true, shutdown: true }] }",
      /cannot be both decommissioned/,
    ],
    [
      "a reserved label key",
      "inventory: { defaults: { labels: { node-role.kubernetes.io/worker: '' } } }",
      /inventory.defaults.labels: label key "node-role.kubernetes.io\/worker" is under kubernetes.io/,
    ],
    [
      "a bad label value",
      "inventory: { racks: [{ name: r1, labels: { a: 'has space' } }] }",
      /inventory.racks\[0\].labels: label value "has space"/,
    ],
    [
      "a zone that is no label value",
      "inventory: { defaults: { zone: 'dc 1' } }",
      /inventory.defaults.zone: label value "dc 1"/,
    ],
    [
      "an unknown policy",
      "inventory: { unmatchedNodes: ignore }",
      /inventory.unmatchedNodes: must be one of leave, initialize, delete/,
    ],
    [
      "an unknown machine field",
      "inventory: { machines: [{ name: a, power: off }] }",
      /inventory.machines\[0\].power: unknown field/,
    ],
    [
      "a boolean that is not",
      "inventory: { machines: [{ name: a, decommissioned: 'yes' }] }",
      /decommissioned: must be true or false/,
    ],
    ["loadBalancers without pools", "loadBalancers: {}", /loadBalancers.pools: must list at least one pool/],
    [
      "a pool without addresses",
      "loadBalancers: { pools: [{ name: p }] }",
      /loadBalancers.pools\[0\].addresses: must list at least one/,
    ],
    [
      "a bad range",
      "loadBalancers: { pools: [{ name: p, addresses: ['10.0.0.9-10.0.0.1'] }] }",
      /"10.0.0.9-10.0.0.1" is not a CIDR, a range of one family/,
    ],
    [
      "a mixed-family range",
      "loadBalancers: { pools: [{ name: p, addresses: ['10.0.0.1-2001:db8::1'] }] }",
      /is not a CIDR, a range of one family/,
    ],
    [
      "overlapping pools",
      "loadBalancers: { pools: [{ name: a, addresses: [10.0.0.0/24] }, { name: b, addresses: ['10.0.0.200-10.0.1.5'] }] }",
      /10.0.0.0\/24 \(pool a\) overlaps 10.0.0.200-10.0.1.5 \(pool b\)/,
    ],
    [
      "overlapping ranges in one pool (its capacity would count them twice)",
      "loadBalancers: { pools: [{ name: a, addresses: [10.0.0.0/24, '10.0.0.200-10.0.0.210'] }] }",
      /loadBalancers.pools\[0\].addresses: 10.0.0.0\/24 overlaps 10.0.0.200-10.0.0.210, both in pool a/,
    ],
    [
      "a twice-named pool",
      "loadBalancers: { pools: [{ name: a, addresses: [10.0.0.0/30] }, { name: a, addresses: [10.0.1.0/30] }] }",
      /loadBalancers.pools\[1\].name: "a" is listed twice/,
    ],
    [
      "a bad pool name",
      "loadBalancers: { pools: [{ name: Public, addresses: [10.0.0.0/30] }] }",
      /loadBalancers.pools\[0\]: must be a mapping with a name/,
    ],
    [
      "a negative priority",
      "loadBalancers: { pools: [{ name: a, priority: -1, addresses: [10.0.0.0/30] }] }",
      /priority: must be a whole number, 0 or more/,
    ],
    [
      "a bad namespace",
      "loadBalancers: { pools: [{ name: a, namespaces: [Team_A], addresses: [10.0.0.0/30] }] }",
      /namespaces: "Team_A" is not a namespace name/,
    ],
    [
      "announcing on an annotation the provider reads",
      "loadBalancers: { pools: [{ name: a, addresses: [10.0.0.0/30] }], announceAnnotations: [baremetal.cloudprovider.io/loadBalancerIPs] }",
      /is read from Services/,
    ],
    [
      "a bad sharing annotation",
      "loadBalancers: { pools: [{ name: a, addresses: [10.0.0.0/30] }], sharingAnnotation: 'bad key/' }",
      /loadBalancers.sharingAnnotation: annotation key "bad key\/"/,
    ],
  ];

  for (const [name, yaml, want] of broken) {
    test(`rejects ${name}, naming the field`, () => {
      const parsed = parseBaremetalConfig(yaml);
      expect(parsed.ok).toBe(false);
      if (!parsed.ok) expect(parsed.errors.join("\n")).toMatch(want);
    });
  }

  test("every problem at once", () => {
    const parsed = parseBaremetalConfig(
      "inventory: { machines: [{ name: A }, { pattern: 'x[' }], unmatchedNodes: x }\nloadBalancers: { pools: [{ name: p, addresses: [nope] }] }",
    );
    expect(parsed.ok ? [] : parsed.errors).toHaveLength(4);
  });
});
