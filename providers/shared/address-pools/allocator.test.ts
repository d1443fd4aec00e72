import { describe, expect, test } from "bun:test";
import type { Service } from "../../../src/kube/objects.ts";
import { formatIP } from "../../../src/net/ip.ts";
import { AllocationTable, assign, sharingBlockedByRetiring, type AllocatorView } from "./allocator.ts";
import { claimFor, claimId, evidenceOf, shareTraitsOf, shownAddresses } from "./claim.ts";
import { service, settingsFrom, type ServiceOptions } from "./fixtures.test-support.ts";
import type { LoadBalancerSettings } from "./pools-config.ts";
import { reconcile, restore, retire } from "./restore.ts";

const V4 = `{ pools: [{ name: p1, addresses: ["10.0.0.0/30"] }] }`;
const TWO_ADDRESSES = `{ pools: [{ name: p1, addresses: ["10.0.0.1-10.0.0.2"] }] }`;
const ONE_ADDRESS = `{ pools: [{ name: p1, addresses: ["10.0.0.9"] }] }`;
const DUAL = `{ pools: [{ name: v4, addresses: ["10.0.0.0/30"] }, { name: v6, addresses: ["2001:db8::/126"] }] }`;
const PRIORITIES = `{ pools: [
  { name: unset, addresses: ["10.3.0.0/30"] },
  { name: low, priority: 20, addresses: ["10.1.0.0/30"] },
  { name: high, priority: 10, addresses: ["10.2.0.0/30"] } ] }`;
const TENANTS = `{ pools: [
  { name: shared, priority: 1, addresses: ["10.0.0.0/30"] },
  { name: team-a, priority: 50, namespaces: [team-a], addresses: ["10.10.0.0/30"] },
  { name: vip, autoAssign: false, addresses: ["10.20.0.0/30"] } ] }`;
const RESERVED_ONLY = `{ pools: [{ name: team-a, namespaces: [team-a], addresses: ["10.10.0.0/30"] }] }`;

const NAMESPACE_LABELS: Record<string, Record<string, string>> = { "team-c": { tier: "gold" } };

function run(settings: LoadBalancerSettings, table = new AllocationTable(), moveGuard?: string) {
  const view: AllocatorView = {
    table,
    pools: settings.pools,
    sharingAnnotation: settings.sharingAnnotation,
    moveGuard,
  };
  const context = { pools: settings.pools, namespaceLabels: (ns: string) => NAMESPACE_LABELS[ns] ?? {} };
  return {
    table,
    ensure(svc: Service): { addresses?: string[]; problem?: string; remarks?: readonly string[]; kinds?: string[] } {
      const claimed = claimFor(svc, settings, context);
      if (!claimed.ok) return { problem: claimed.problem };
      const decision = assign(view, claimed.claim);
      if (!decision.ok) return { problem: decision.problem };
      const remarks = [...claimed.remarks, ...decision.notes.map((n) => n.message)];
      return { addresses: decision.addresses.map(formatIP), remarks, kinds: decision.notes.map((n) => n.kind) };
    },
    view,
  };
}

interface Step {
  readonly svc: [string, ServiceOptions?];
  /** Expected addresses, or a pattern the problem must match. */
  readonly want: string[] | RegExp;
  readonly remark?: RegExp;
}

interface Case {
  readonly name: string;
  readonly pools: string;
  readonly steps: readonly Step[];
}

const cases: Case[] = [
  // Order and exhaustion.
  {
    name: "first free address, in order",
    pools: V4,
    steps: [
      { svc: ["a"], want: ["10.0.0.0"] },
      { svc: ["b"], want: ["10.0.0.1"] },
    ],
  },
  {
    name: "a full pool fails the next Service and names the pool",
    pools: TWO_ADDRESSES,
    steps: [
      { svc: ["a"], want: ["10.0.0.1"] },
      { svc: ["b"], want: ["10.0.0.2"] },
      { svc: ["c"], want: /^no free IPv4 address in address pool\(s\) p1$/ },
    ],
  },
  {
    name: "a Service that holds an address keeps it",
    pools: V4,
    steps: [
      { svc: ["a"], want: ["10.0.0.0"] },
      { svc: ["b"], want: ["10.0.0.1"] },
      { svc: ["a"], want: ["10.0.0.0"] },
    ],
  },
  {
    name: "lower priority number first, pools without priority last",
    pools: PRIORITIES,
    steps: [{ svc: ["a"], want: ["10.2.0.0"] }],
  },
  // Namespaces and pool choice.
  {
    name: "a namespace's reserved pool before open pools",
    pools: TENANTS,
    steps: [
      { svc: ["a", { ns: "team-a" }], want: ["10.10.0.0"] },
      { svc: ["b", { ns: "team-b" }], want: ["10.0.0.0"] },
    ],
  },
  {
    name: "a reserved pool serves no other namespace",
    pools: RESERVED_ONLY,
    steps: [{ svc: ["a", { ns: "team-b" }], want: /^no address pool offers IPv4 addresses to namespace team-b$/ }],
  },
  {
    name: "autoAssign: false pools are used only when asked for",
    pools: TENANTS,
    steps: [{ svc: ["a", { ns: "x", pool: "vip" }], want: ["10.20.0.0"] }],
  },
  {
    name: "an unknown pool is the Service's problem",
    pools: TENANTS,
    steps: [
      {
        svc: ["a", { pool: "nope" }],
        want: /address pool "nope", which does not exist \(pools: shared, team-a, vip\)/,
      },
    ],
  },
  {
    name: "the requested pool only, even when full",
    pools: TENANTS,
    steps: [
      ...[0, 1, 2, 3].map((i): Step => ({ svc: [`v${i}`, { pool: "vip" }], want: [`10.20.0.${i}`] })),
      { svc: ["v4", { pool: "vip" }], want: /no free IPv4 address in address pool\(s\) vip/ },
    ],
  },
  // Families.
  { name: "IPv6 single stack", pools: DUAL, steps: [{ svc: ["a", { families: ["IPv6"] }], want: ["2001:db8::"] }] },
  {
    name: "dual-stack gets one address per family, in family order",
    pools: DUAL,
    steps: [{ svc: ["a", { families: ["IPv6", "IPv4"] }], want: ["2001:db8::", "10.0.0.0"] }],
  },
  {
    name: "RequireDualStack fails without an IPv6 pool",
    pools: V4,
    steps: [
      {
        svc: ["a", { families: ["IPv4", "IPv6"] }],
        want: /^no address pool offers IPv6 addresses to namespace default$/,
      },
    ],
  },
  {
    name: "PreferDualStack settles for one family, with a remark",
    pools: V4,
    steps: [
      {
        svc: ["a", { families: ["IPv4", "IPv6"], policy: "PreferDualStack" }],
        want: ["10.0.0.0"],
        remark: /no IPv6 address \(the Service only prefers dual-stack\)/,
      },
    ],
  },
  {
    name: "PreferDualStack with its first family full gets the other one, with a remark",
    pools: `{ pools: [{ name: p, addresses: ["10.0.0.9", "2001:db8::/126"] }] }`,
    steps: [
      { svc: ["a"], want: ["10.0.0.9"] },
      {
        svc: ["b", { families: ["IPv4", "IPv6"], policy: "PreferDualStack" }],
        want: ["2001:db8::"],
        remark: /no IPv4 address \(the Service only prefers dual-stack\): no free IPv4 address in address pool\(s\) p/,
      },
      { svc: ["c", { families: ["IPv6"] }], want: ["2001:db8::1"] },
      { svc: ["d", { families: ["IPv6"] }], want: ["2001:db8::2"] },
      { svc: ["e", { families: ["IPv6"] }], want: ["2001:db8::3"] },
      { svc: ["f", { families: ["IPv4", "IPv6"], policy: "PreferDualStack" }], want: /no free IPv4.*; no free IPv6/ },
    ],
  },
  {
    name: "PreferDualStack fails when the family of its requested address gets none",
    pools: V4,
    steps: [
      { svc: ["a", { ips: "10.0.0.1" }], want: ["10.0.0.1"] },
      {
        svc: ["b", { families: ["IPv4", "IPv6"], policy: "PreferDualStack", ips: "10.0.0.1" }],
        want: /requested address 10.0.0.1 is not available/,
      },
    ],
  },
  {
    name: "MetalLB's annotations are aliases: requested addresses, pool, sharing",
    pools: PRIORITIES,
    steps: [
      { svc: ["a", { annotations: { "metallb.io/loadBalancerIPs": "10.3.0.2" } }], want: ["10.3.0.2"] },
      { svc: ["b", { annotations: { "metallb.universe.tf/loadBalancerIPs": "10.3.0.3" } }], want: ["10.3.0.3"] },
      { svc: ["c", { annotations: { "metallb.io/address-pool": "low" } }], want: ["10.1.0.0"] },
      {
        svc: ["d", { annotations: { "metallb.universe.tf/address-pool": "nope" } }],
        want: /annotation metallb.universe.tf\/address-pool names address pool "nope"/,
      },
      { svc: ["e", { ports: [80], annotations: { "metallb.io/allow-shared-ip": "k" } }], want: ["10.2.0.0"] },
      { svc: ["f", { ports: [443], annotations: { "metallb.universe.tf/allow-shared-ip": "k" } }], want: ["10.2.0.0"] },
    ],
  },
  {
    name: "ours come first; a MetalLB annotation that disagrees is reported as ignored",
    pools: V4,
    steps: [
      {
        svc: ["a", { ips: "10.0.0.1", lbIP: "10.0.0.3", annotations: { "metallb.io/loadBalancerIPs": "10.0.0.2" } }],
        want: ["10.0.0.1"],
        remark:
          /annotation metallb.io\/loadBalancerIPs is ignored because annotation baremetal.cloudprovider.io\/loadBalancerIPs is set\nspec.loadBalancerIP is ignored/,
      },
      {
        svc: ["b", { share: "k", annotations: { "metallb.io/allow-shared-ip": "other" } }],
        want: ["10.0.0.0"],
        remark:
          /annotation metallb.io\/allow-shared-ip is ignored because annotation baremetal.cloudprovider.io\/sharing-key is set/,
      },
    ],
  },
  {
    name: "a large IPv6 range costs nothing extra",
    pools: `{ pools: [{ name: big, addresses: ["2001:db8:1::/64"] }] }`,
    steps: [{ svc: ["a", { families: ["IPv6"] }], want: ["2001:db8:1::"] }],
  },
  // Requested addresses.
  {
    name: "a requested address from a pool",
    pools: V4,
    steps: [
      { svc: ["a", { ips: "10.0.0.2" }], want: ["10.0.0.2"] },
      { svc: ["b"], want: ["10.0.0.0"] },
    ],
  },
  {
    name: "spec.loadBalancerIP is a request too",
    pools: V4,
    steps: [{ svc: ["a", { lbIP: "10.0.0.3" }], want: ["10.0.0.3"] }],
  },
  {
    name: "the annotation wins over spec.loadBalancerIP",
    pools: V4,
    steps: [
      {
        svc: ["a", { ips: "10.0.0.1", lbIP: "10.0.0.3" }],
        want: ["10.0.0.1"],
        remark: /spec.loadBalancerIP is ignored/,
      },
    ],
  },
  {
    name: "a requested address outside every pool",
    pools: V4,
    steps: [{ svc: ["a", { ips: "192.0.2.1" }], want: /^requested address 192.0.2.1 is not in any address pool$/ }],
  },
  {
    name: "a requested address that is taken",
    pools: V4,
    steps: [
      { svc: ["a"], want: ["10.0.0.0"] },
      {
        svc: ["b", { ips: "10.0.0.0" }],
        want: /^requested address 10.0.0.0 is not available: it is used by default\/a, which does not share its address$/,
      },
    ],
  },
  {
    name: "a requested address in another namespace's pool",
    pools: TENANTS,
    steps: [
      {
        svc: ["a", { ns: "team-b", ips: "10.10.0.1" }],
        want: /is in address pool team-a, which is reserved for namespace\(s\) team-a/,
      },
    ],
  },
  {
    name: "a requested address outside the requested pool",
    pools: TENANTS,
    steps: [
      {
        svc: ["a", { ips: "10.0.0.1", pool: "vip" }],
        want: /is in address pool shared, but the Service asks for pool vip/,
      },
    ],
  },
  {
    name: "a requested address of the wrong family",
    pools: DUAL,
    steps: [
      {
        svc: ["a", { families: ["IPv4"], ips: "2001:db8::1" }],
        want: /2001:db8::1 is IPv6, but the Service has ipFamilies IPv4/,
      },
    ],
  },
  {
    name: "without ipFamilies, the requested address decides the family",
    pools: DUAL,
    steps: [{ svc: ["a", { ips: "2001:db8::1" }], want: ["2001:db8::1"] }],
  },
  {
    name: "a requested address that is no address",
    pools: V4,
    steps: [{ svc: ["a", { ips: "ten.0.0.1" }], want: /"ten.0.0.1" is not an IP address/ }],
  },
  {
    name: "two requested addresses of one family",
    pools: V4,
    steps: [{ svc: ["a", { ips: "10.0.0.1,10.0.0.2" }], want: /at most one address per IP family/ }],
  },
  {
    name: "requested for one family, allocated for the other",
    pools: DUAL,
    steps: [{ svc: ["a", { families: ["IPv4", "IPv6"], ips: "2001:db8::3" }], want: ["10.0.0.0", "2001:db8::3"] }],
  },
  // Sharing (MetalLB allow-shared-ip rules).
  {
    name: "same key, other ports: one address",
    pools: V4,
    steps: [
      { svc: ["a", { share: "k", ports: [80] }], want: ["10.0.0.0"] },
      { svc: ["b", { share: "k", ports: [443] }], want: ["10.0.0.0"] },
    ],
  },
  {
    name: "same key, same port: another address",
    pools: V4,
    steps: [
      { svc: ["a", { share: "k", ports: [80] }], want: ["10.0.0.0"] },
      { svc: ["b", { share: "k", ports: [80] }], want: ["10.0.0.1"] },
    ],
  },
  {
    name: "same port number, other protocol: shared",
    pools: V4,
    steps: [
      { svc: ["a", { share: "k", ports: ["TCP/53"] }], want: ["10.0.0.0"] },
      { svc: ["b", { share: "k", ports: ["UDP/53"] }], want: ["10.0.0.0"] },
    ],
  },
  {
    name: "different keys never share",
    pools: V4,
    steps: [
      { svc: ["a", { share: "k", ports: [80] }], want: ["10.0.0.0"] },
      { svc: ["b", { share: "j", ports: [443] }], want: ["10.0.0.1"] },
    ],
  },
  {
    name: "no key never shares",
    pools: V4,
    steps: [
      { svc: ["a", { share: "k", ports: [80] }], want: ["10.0.0.0"] },
      { svc: ["b", { ports: [443] }], want: ["10.0.0.1"] },
    ],
  },
  {
    name: "Local traffic policy shares only with the same selector",
    pools: V4,
    steps: [
      { svc: ["a", { share: "k", ports: [80], local: { app: "x" } }], want: ["10.0.0.0"] },
      { svc: ["b", { share: "k", ports: [443], local: { app: "x" } }], want: ["10.0.0.0"] },
      { svc: ["c", { share: "k", ports: [8080], local: { app: "y" } }], want: ["10.0.0.1"] },
      { svc: ["d", { share: "k", ports: [8443] }], want: ["10.0.0.2"] },
    ],
  },
  {
    name: "a requested shared address",
    pools: V4,
    steps: [
      { svc: ["a", { share: "k", ports: [80] }], want: ["10.0.0.0"] },
      { svc: ["b", { share: "k", ports: [443], ips: "10.0.0.0" }], want: ["10.0.0.0"] },
    ],
  },
  {
    name: "a requested shared address whose port is taken",
    pools: V4,
    steps: [
      { svc: ["a", { share: "k", ports: [80] }], want: ["10.0.0.0"] },
      {
        svc: ["b", { share: "k", ports: [80], ips: "10.0.0.0" }],
        want: /it is used by default\/a, which already uses port TCP\/80 on it/,
      },
    ],
  },
  {
    name: "sharing in a full pool; a Service without the key finds no room",
    pools: ONE_ADDRESS,
    steps: [
      { svc: ["a", { share: "k", ports: [80] }], want: ["10.0.0.9"] },
      { svc: ["b", { share: "k", ports: [443] }], want: ["10.0.0.9"] },
      { svc: ["c"], want: /no free IPv4 address/ },
    ],
  },
  {
    name: "a Service that now clashes with its co-sharer moves, with a remark",
    pools: V4,
    steps: [
      { svc: ["a", { share: "k", ports: [80] }], want: ["10.0.0.0"] },
      { svc: ["b", { share: "k", ports: [443] }], want: ["10.0.0.0"] },
      {
        svc: ["b", { share: "k", ports: [80] }],
        want: ["10.0.0.1"],
        remark: /moved from 10.0.0.0 \(pool p1\) to 10.0.0.1 \(pool p1\): 10.0.0.0 is not available: .*port TCP\/80/,
      },
    ],
  },
];

/** Runs each case's steps against a fresh table. */
function table(list: readonly Case[]): void {
  for (const c of list) {
    test(c.name, () => {
      const r = run(settingsFrom(c.pools));
      for (const step of c.steps) {
        const got = r.ensure(service(...step.svc));
        if (step.want instanceof RegExp)
          expect(got.problem ?? `no problem, got ${JSON.stringify(got.addresses)}`).toMatch(step.want);
        else expect(got.addresses ?? got.problem).toEqual(step.want);
        if (step.remark) expect(got.remarks?.join("\n")).toMatch(step.remark);
      }
    });
  }
}

describe("allocator", () => {
  table(cases);

  test("a failed decision leaves the Service's holding as it was", () => {
    const r = run(settingsFrom(V4));
    expect(r.ensure(service("a")).addresses).toEqual(["10.0.0.0"]);
    expect(r.ensure(service("a", { ips: "192.0.2.1" })).problem).toMatch(/not in any address pool/);
    expect(r.table.holding("uid-default-a")?.addresses).toEqual(["10.0.0.0"]);
  });

  test("a freed address is reused once nothing shows it; a retiring one is not", () => {
    const r = run(settingsFrom(TWO_ADDRESSES));
    r.ensure(service("a"));
    r.ensure(service("b"));
    retire(r.table, "uid-default-a", () => true);
    expect(r.ensure(service("c")).problem).toMatch(/no free IPv4 address/);
    expect(r.table.holding("uid-default-a")?.retiring).toEqual(["10.0.0.1"]);
    retire(r.table, "uid-default-b", () => false);
    expect(r.ensure(service("c")).addresses).toEqual(["10.0.0.2"]);
  });

  test("a move keeps the old address retiring until the Service stops showing it", () => {
    const settings = settingsFrom(V4);
    const r = run(settings);
    r.ensure(service("a", { ips: "10.0.0.0" }));
    r.ensure(service("a", { ips: "10.0.0.3" }));
    expect(r.table.holding("uid-default-a")).toMatchObject({ addresses: ["10.0.0.3"], retiring: ["10.0.0.0"] });
    expect(r.ensure(service("b", { ips: "10.0.0.0" })).problem).toMatch(
      /not available: it is used by default\/a, which is giving it up/,
    );
    const stillShowing = service("a", { ips: "10.0.0.3", status: ["10.0.0.0"] });
    expect(reconcile(r.table, () => shownAddresses(stillShowing, settings))).toBe(0);
    const updated = service("a", { ips: "10.0.0.3", status: ["10.0.0.3"], announced: "10.0.0.3" });
    expect(reconcile(r.table, () => shownAddresses(updated, settings))).toBe(1);
    expect(r.ensure(service("b", { ips: "10.0.0.0" })).addresses).toEqual(["10.0.0.0"]);
  });

  test("reconcile frees the holdings of Services that are gone", () => {
    const r = run(settingsFrom(TWO_ADDRESSES));
    r.ensure(service("a"));
    r.ensure(service("b"));
    expect(reconcile(r.table, (h) => (h.id === "uid-default-a" ? undefined : new Set()))).toBe(1);
    expect(r.ensure(service("c")).addresses).toEqual(["10.0.0.1"]);
  });

  test("sharing blocked only by a Service giving the address up is reported, so the caller cleans first", () => {
    const settings = settingsFrom(V4);
    const r = run(settings);
    const blocked = (svc: Service): boolean => {
      const claimed = claimFor(svc, settings, { pools: settings.pools, namespaceLabels: () => ({}) });
      return claimed.ok && sharingBlockedByRetiring(r.view, claimed.claim);
    };
    r.ensure(service("a", { share: "k", ports: [80] }));
    r.ensure(service("b", { share: "k", ports: [443] }));
    retire(r.table, "uid-default-a", () => true);
    const twin = service("a", { share: "k", ports: [80], uid: "new" });
    expect(blocked(twin)).toBe(true);
    expect(blocked(service("c", { share: "other", ports: [80] }))).toBe(false);
    expect(blocked(service("c", { ports: [81] }))).toBe(false);
    expect(blocked(service("b", { share: "k", ports: [443] }))).toBe(false);
  });

  test("a member of a sharing group keeps the address while another gives it up; a newcomer does not get it", () => {
    const r = run(settingsFrom(V4));
    expect(r.ensure(service("tcp", { share: "k", ports: ["TCP/53"] })).addresses).toEqual(["10.0.0.0"]);
    expect(r.ensure(service("udp", { share: "k", ports: ["UDP/53"] })).addresses).toEqual(["10.0.0.0"]);
    retire(r.table, "uid-default-tcp", () => true);
    expect(r.ensure(service("udp", { share: "k", ports: ["UDP/53"] }))).toMatchObject({
      addresses: ["10.0.0.0"],
      kinds: [],
    });
    expect(r.ensure(service("udp", { share: "k", ports: ["UDP/53"], ips: "10.0.0.0" })).addresses).toEqual([
      "10.0.0.0",
    ]);
    expect(r.ensure(service("other", { share: "k", ports: ["TCP/54"] })).addresses).toEqual(["10.0.0.1"]);
    expect(r.ensure(service("asks", { share: "k", ports: ["TCP/55"], ips: "10.0.0.0" })).problem).toMatch(
      /giving it up/,
    );
  });

  test("a requested address that replaces the held one is a move, with a note", () => {
    const r = run(settingsFrom(V4));
    r.ensure(service("a", { ips: "10.0.0.1" }));
    const got = r.ensure(service("a", { ips: "10.0.0.2" }));
    expect(got).toMatchObject({ addresses: ["10.0.0.2"], kinds: ["moved"] });
    expect(got.remarks?.join()).toMatch(
      /moved from 10.0.0.1 \(pool p1\) to 10.0.0.2 \(pool p1\): 10.0.0.1 is not the address the Service requests/,
    );
  });
});

describe("pool features", () => {
  const cases: Case[] = [
    {
      name: "avoidBuggyIPs skips .0 and .255, and such an address is not the pool's",
      pools: `{ pools: [{ name: p, avoidBuggyIPs: true, addresses: ["10.0.0.255-10.0.1.1"] }] }`,
      steps: [
        { svc: ["a"], want: ["10.0.1.1"] },
        { svc: ["b"], want: /no free IPv4 address/ },
        { svc: ["c", { ips: "10.0.1.0" }], want: /not in any address pool/ },
      ],
    },
    {
      name: "Descending hands out the highest address first, last range first",
      pools: `{ pools: [{ name: p, allocationOrder: Descending, addresses: ["10.0.0.0/30", "10.0.1.0/30"] }] }`,
      steps: [
        { svc: ["a"], want: ["10.0.1.3"] },
        { svc: ["b"], want: ["10.0.1.2"] },
      ],
    },
    {
      name: "namespace selectors serve labelled namespaces, before open pools",
      pools: `{ pools: [{ name: open, addresses: ["10.0.0.0/30"] }, { name: gold, namespaceSelectors: [{ matchLabels: { tier: gold } }], addresses: ["10.9.0.0/30"] }] }`,
      steps: [
        { svc: ["a", { ns: "team-c" }], want: ["10.9.0.0"] },
        { svc: ["b", { ns: "team-d" }], want: ["10.0.0.0"] },
      ],
    },
    {
      name: "Service selectors: only matching Services (MetalLB: namespaces OR namespace selectors, AND Service selectors)",
      pools: `{ pools: [{ name: web, namespaces: [shop], serviceSelectors: [{ matchExpressions: [{ key: app, operator: In, values: [web] }] }], addresses: ["10.9.0.0/30"] }] }`,
      steps: [
        { svc: ["a", { ns: "shop", labels: { app: "web" } }], want: ["10.9.0.0"] },
        {
          svc: ["b", { ns: "shop", labels: { app: "db" } }],
          want: /no address pool offers IPv4 addresses to namespace shop/,
        },
        { svc: ["c", { ns: "other", labels: { app: "web" } }], want: /no address pool offers IPv4 addresses/ },
      ],
    },
    {
      name: "implicit sharing (kube-vip allow-share): no annotation needed, ports must differ",
      pools: `{ pools: [{ name: p, implicitSharing: true, addresses: ["10.0.0.0/30"] }] }`,
      steps: [
        { svc: ["a", { ports: [80] }], want: ["10.0.0.0"] },
        { svc: ["b", { ports: [443] }], want: ["10.0.0.0"] },
        { svc: ["c", { ports: [80] }], want: ["10.0.0.1"] },
      ],
    },
    {
      name: "implicit sharing is IPv4 only",
      pools: `{ pools: [{ name: p, implicitSharing: true, addresses: ["2001:db8::/126"] }] }`,
      steps: [
        { svc: ["a", { families: ["IPv6"], ports: [80] }], want: ["2001:db8::"] },
        { svc: ["b", { families: ["IPv6"], ports: [443] }], want: ["2001:db8::1"] },
      ],
    },
  ];
  table(cases);
});

describe("an allocated address never moves silently", () => {
  const BEFORE = `{ pools: [{ name: main, addresses: ["10.0.0.0/30"] }, { name: extra, addresses: ["10.9.0.0/30"] }] }`;
  const AFTER = `{ pools: [{ name: main, addresses: ["10.0.0.0/30"] }] }`;
  const AFTER_ALLOWING = `{ pools: [{ name: main, addresses: ["10.0.0.0/30"] }, { name: extra, allowAddressMoves: true, addresses: ["10.9.0.1"] }] }`;
  const RESERVED = `{ pools: [{ name: main, addresses: ["10.0.0.0/30"] }, { name: extra, namespaces: [team-a], addresses: ["10.9.0.0/30"] }] }`;

  /** The Service got 10.9.0.0 from `extra` under BEFORE; then the configuration became `after`. */
  function afterChange(after: string, o: ServiceOptions = {}, guard?: string) {
    const table = new AllocationTable();
    const first = run(settingsFrom(BEFORE), table).ensure(service("a", { ...o, pool: "extra" }));
    expect(first.addresses).toEqual(["10.9.0.0"]);
    return run(settingsFrom(after), table, guard).ensure(service("a", { from: "extra", announced: "10.9.0.0", ...o }));
  }

  const cases: {
    name: string;
    after: string;
    o?: ServiceOptions;
    guard?: string;
    want: string[];
    kind: string;
    note: RegExp;
  }[] = [
    {
      name: "left every pool: kept, flagged with address and origin pool",
      after: AFTER,
      want: ["10.9.0.0"],
      kind: "kept",
      note: /^kept 10.9.0.0 \(pool extra\): it is not in any address pool; addresses are moved only with/,
    },
    {
      name: "left every pool, the Service allows moves: moved",
      after: AFTER,
      o: { allowMove: true },
      want: ["10.0.0.0"],
      kind: "moved",
      note: /^moved from 10.9.0.0 \(pool extra\) to 10.0.0.0 \(pool main\): 10.9.0.0 is not in any address pool$/,
    },
    {
      name: "the origin pool shrank and allows moves: moved",
      after: AFTER_ALLOWING,
      want: ["10.0.0.0"],
      kind: "moved",
      note: /^moved from 10.9.0.0 \(pool extra\) to 10.0.0.0 \(pool main\)/,
    },
    {
      name: "the pool no longer serves the namespace: kept",
      after: RESERVED,
      want: ["10.9.0.0"],
      kind: "kept",
      note: /it is in address pool extra, which is reserved for namespace\(s\) team-a/,
    },
    {
      name: "a move guard refuses even an allowed move",
      after: AFTER,
      o: { allowMove: true },
      guard: "replicas disagree",
      want: ["10.9.0.0"],
      kind: "kept",
      note: /moves are refused: replicas disagree/,
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const got = afterChange(c.after, c.o, c.guard);
      expect({ addresses: got.addresses, kinds: got.kinds }).toEqual({ addresses: c.want, kinds: [c.kind] });
      expect(got.remarks?.join("\n")).toMatch(c.note);
    });
  }

  test("a kept address stays the Service's: nobody else gets it, the next sync keeps it again", () => {
    const table = new AllocationTable();
    run(settingsFrom(BEFORE), table).ensure(service("a", { pool: "extra" }));
    const r = run(settingsFrom(`{ pools: [{ name: main, addresses: ["10.9.0.0/31"] }] }`), table);
    expect(r.ensure(service("b")).addresses).toEqual(["10.9.0.1"]);
    expect(r.ensure(service("a")).addresses).toEqual(["10.9.0.0"]);
  });
});

describe("restoring the table from Services", () => {
  const settings = settingsFrom(V4);
  const evidence = (services: Service[]) =>
    services.map((s) => ({ traits: { ...shareTraitsOf(s, settings), id: claimId(s) }, ...evidenceOf(s, settings) }));
  const restored = (services: Service[]) => {
    const r = run(settings);
    const remarks = restore(r.view, evidence(services));
    return { r, remarks };
  };

  const cases: {
    name: string;
    services: Service[];
    holds: Record<string, { addresses: string[]; retiring?: string[] }>;
    remark?: RegExp;
  }[] = [
    {
      name: "from the status",
      services: [service("a", { status: ["10.0.0.2"] })],
      holds: { a: { addresses: ["10.0.0.2"] } },
    },
    {
      name: "from the announce annotation alone (died before the status write)",
      services: [service("a", { announced: "10.0.0.2" })],
      holds: { a: { addresses: ["10.0.0.2"] } },
    },
    {
      name: "the annotation is newer than the status; the status address is retiring",
      services: [service("a", { status: ["10.0.0.1"], announced: "10.0.0.2" })],
      holds: { a: { addresses: ["10.0.0.2"], retiring: ["10.0.0.1"] } },
    },
    {
      name: "an address outside every pool is kept, never replaced",
      services: [service("a", { status: ["192.0.2.7"] })],
      holds: { a: { addresses: ["192.0.2.7"] } },
    },
    {
      name: "a Service being deleted holds nothing, but what it shows stays taken",
      services: [service("a", { status: ["10.0.0.1"], deleting: true })],
      holds: { a: { addresses: [], retiring: ["10.0.0.1"] } },
    },
    {
      name: "a stale status never takes an address from its current holder",
      services: [
        service("old", { status: ["10.0.0.1"], created: "2025-01-01T00:00:00Z", deleting: true }),
        service("new", { status: ["10.0.0.1"], announced: "10.0.0.1" }),
      ],
      holds: { new: { addresses: ["10.0.0.1"] }, old: { addresses: [], retiring: [] } },
    },
    {
      name: "a conflict left by hand keeps the older Service",
      services: [
        service("young", { status: ["10.0.0.1"], created: "2026-02-01T00:00:00Z" }),
        service("old", { status: ["10.0.0.1"], created: "2025-01-01T00:00:00Z" }),
      ].sort((a, b) => (a.metadata.creationTimestamp ?? "").localeCompare(b.metadata.creationTimestamp ?? "")),
      holds: { old: { addresses: ["10.0.0.1"] } },
      remark: /default\/young: not restoring 10.0.0.1: it is used by default\/old/,
    },
    {
      name: "a newer Service's status outranks an older Service's address only its annotation shows",
      services: [
        service("x", { announced: "10.0.0.3", created: "2025-01-01T00:00:00Z" }),
        service("y", { status: ["10.0.0.3"], created: "2026-02-01T00:00:00Z" }),
      ],
      holds: { y: { addresses: ["10.0.0.3"] } },
      remark: /default\/x: not restoring 10.0.0.3: it is used by default\/y/,
    },
    {
      name: "an annotation-only address someone's status shows: the Service keeps its own status address",
      services: [
        service("x", { status: ["10.0.0.1"], announced: "10.0.0.3", created: "2025-01-01T00:00:00Z" }),
        service("y", { status: ["10.0.0.3"], created: "2026-02-01T00:00:00Z" }),
      ],
      holds: { x: { addresses: ["10.0.0.1"] }, y: { addresses: ["10.0.0.3"] } },
      remark: /default\/x: not restoring 10.0.0.3: it is used by default\/y/,
    },
    {
      name: "sharing Services are restored together",
      services: [
        service("a", { status: ["10.0.0.1"], share: "k", ports: [80] }),
        service("b", { status: ["10.0.0.1"], share: "k", ports: [443] }),
      ],
      holds: { a: { addresses: ["10.0.0.1"] }, b: { addresses: ["10.0.0.1"] } },
    },
  ];

  for (const c of cases) {
    test(c.name, () => {
      const { r, remarks } = restored(c.services);
      for (const s of c.services) {
        const want = c.holds[s.metadata.name];
        const got = r.table.holding(claimId(s));
        if (!want || (want.addresses.length === 0 && (want.retiring ?? []).length === 0)) expect(got).toBeUndefined();
        else
          expect({ addresses: got?.addresses, retiring: got?.retiring }).toEqual({
            addresses: want.addresses,
            retiring: want.retiring ?? [],
          });
      }
      if (c.remark) expect(remarks.join("\n")).toMatch(c.remark);
      else expect(remarks).toEqual([]);
    });
  }

  test("an address only the annotation shows is held only if it fits; else the status address is", () => {
    const fits = (ip: { value: bigint }): boolean => formatIP({ family: 4, value: ip.value }).startsWith("10.0.0.");
    const read = (o: ServiceOptions) => {
      const e = evidenceOf(service("a", o), settings, fits);
      return { active: e.active.map(formatIP), retiring: e.retiring.map(formatIP) };
    };
    expect(read({ announced: "10.0.0.2" })).toEqual({ active: ["10.0.0.2"], retiring: [] });
    expect(read({ announced: "10.9.0.2" })).toEqual({ active: [], retiring: ["10.9.0.2"] });
    expect(read({ announced: "10.9.0.2", status: ["10.0.0.1"] })).toEqual({
      active: ["10.0.0.1"],
      retiring: ["10.9.0.2"],
    });
    expect(read({ announced: "10.9.0.2", status: ["10.9.0.2"] })).toEqual({ active: ["10.9.0.2"], retiring: [] });
  });

  test("after a restore, new Services get only addresses nobody shows", () => {
    const { r } = restored([
      service("a", { status: ["10.0.0.0"] }),
      service("b", { announced: "10.0.0.2" }),
      service("c", { status: ["10.0.0.3"], deleting: true }),
    ]);
    expect(r.ensure(service("d")).addresses).toEqual(["10.0.0.1"]);
    expect(r.ensure(service("e")).problem).toMatch(/no free IPv4 address/);
    expect(r.ensure(service("a")).addresses).toEqual(["10.0.0.0"]);
  });
});
