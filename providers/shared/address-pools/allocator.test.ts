import { describe, expect, test } from "bun:test";
import type { Service } from "../../../src/kube/objects.ts";
import { formatIP } from "../../../src/net/ip.ts";
import { AllocationTable, assign, reconcile, restore, retire, type AllocatorView } from "./allocator.ts";
import { claimFor, claimId, evidenceOf, shareTraitsOf, shownAddresses } from "./claim.ts";
import { service, settingsFrom, type ServiceOptions } from "./fixtures.test-support.ts";
import type { LoadBalancerSettings } from "./pools-config.ts";

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

function run(settings: LoadBalancerSettings, table = new AllocationTable()) {
  const view: AllocatorView = { table, pools: settings.pools, sharingAnnotation: settings.sharingAnnotation };
  return {
    table,
    ensure(svc: Service): { addresses?: string[]; problem?: string; remarks?: readonly string[] } {
      const claimed = claimFor(svc, settings);
      if (!claimed.ok) return { problem: claimed.problem };
      const decision = assign(view, claimed.claim);
      if (!decision.ok) return { problem: decision.problem };
      return { addresses: decision.addresses.map(formatIP), remarks: [...claimed.remarks, ...decision.remarks] };
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
  { name: "first free address, in order", pools: V4, steps: [{ svc: ["a"], want: ["10.0.0.0"] }, { svc: ["b"], want: ["10.0.0.1"] }] },
  {
    name: "a full pool fails the next Service and names the pool",
    pools: TWO_ADDRESSES,
    steps: [
      { svc: ["a"], want: ["10.0.0.1"] },
      { svc: ["b"], want: ["10.0.0.2"] },
      { svc: ["c"], want: /^no free IPv4 address in address pool\(s\) p1$/ },
    ],
  },
  { name: "a Service that holds an address keeps it", pools: V4, steps: [{ svc: ["a"], want: ["10.0.0.0"] }, { svc: ["b"], want: ["10.0.0.1"] }, { svc: ["a"], want: ["10.0.0.0"] }] },
  { name: "lower priority number first, pools without priority last", pools: PRIORITIES, steps: [{ svc: ["a"], want: ["10.2.0.0"] }] },
  // Namespaces and pool choice.
  { name: "a namespace's reserved pool before open pools", pools: TENANTS, steps: [{ svc: ["a", { ns: "team-a" }], want: ["10.10.0.0"] }, { svc: ["b", { ns: "team-b" }], want: ["10.0.0.0"] }] },
  { name: "a reserved pool serves no other namespace", pools: RESERVED_ONLY, steps: [{ svc: ["a", { ns: "team-b" }], want: /^no address pool offers IPv4 addresses to namespace team-b$/ }] },
  { name: "autoAssign: false pools are used only when asked for", pools: TENANTS, steps: [{ svc: ["a", { ns: "x", pool: "vip" }], want: ["10.20.0.0"] }] },
  { name: "an unknown pool is the Service's problem", pools: TENANTS, steps: [{ svc: ["a", { pool: "nope" }], want: /address pool "nope", which does not exist \(pools: shared, team-a, vip\)/ }] },
  { name: "the requested pool only, even when full", pools: TENANTS, steps: [...[0, 1, 2, 3].map((i): Step => ({ svc: [`v${i}`, { pool: "vip" }], want: [`10.20.0.${i}`] })), { svc: ["v4", { pool: "vip" }], want: /no free IPv4 address in address pool\(s\) vip/ }] },
  // Families.
  { name: "IPv6 single stack", pools: DUAL, steps: [{ svc: ["a", { families: ["IPv6"] }], want: ["2001:db8::"] }] },
  { name: "dual-stack gets one address per family, in family order", pools: DUAL, steps: [{ svc: ["a", { families: ["IPv6", "IPv4"] }], want: ["2001:db8::", "10.0.0.0"] }] },
  { name: "RequireDualStack fails without an IPv6 pool", pools: V4, steps: [{ svc: ["a", { families: ["IPv4", "IPv6"] }], want: /^no address pool offers IPv6 addresses to namespace default$/ }] },
  {
    name: "PreferDualStack settles for one family, with a remark",
    pools: V4,
    steps: [{ svc: ["a", { families: ["IPv4", "IPv6"], policy: "PreferDualStack" }], want: ["10.0.0.0"], remark: /no IPv6 address \(the Service only prefers dual-stack\)/ }],
  },
  { name: "a large IPv6 range costs nothing extra", pools: `{ pools: [{ name: big, addresses: ["2001:db8:1::/64"] }] }`, steps: [{ svc: ["a", { families: ["IPv6"] }], want: ["2001:db8:1::"] }] },
  // Requested addresses.
  { name: "a requested address from a pool", pools: V4, steps: [{ svc: ["a", { ips: "10.0.0.2" }], want: ["10.0.0.2"] }, { svc: ["b"], want: ["10.0.0.0"] }] },
  { name: "spec.loadBalancerIP is a request too", pools: V4, steps: [{ svc: ["a", { lbIP: "10.0.0.3" }], want: ["10.0.0.3"] }] },
  { name: "the annotation wins over spec.loadBalancerIP", pools: V4, steps: [{ svc: ["a", { ips: "10.0.0.1", lbIP: "10.0.0.3" }], want: ["10.0.0.1"], remark: /spec.loadBalancerIP is ignored/ }] },
  { name: "a requested address outside every pool", pools: V4, steps: [{ svc: ["a", { ips: "192.0.2.1" }], want: /^requested address 192.0.2.1 is not in any address pool$/ }] },
  {
    name: "a requested address that is taken",
    pools: V4,
    steps: [
      { svc: ["a"], want: ["10.0.0.0"] },
      { svc: ["b", { ips: "10.0.0.0" }], want: /^requested address 10.0.0.0 is not available: it is used by default\/a, which does not share its address$/ },
    ],
  },
  { name: "a requested address in another namespace's pool", pools: TENANTS, steps: [{ svc: ["a", { ns: "team-b", ips: "10.10.0.1" }], want: /is in address pool team-a, which is reserved for namespace\(s\) team-a/ }] },
  { name: "a requested address outside the requested pool", pools: TENANTS, steps: [{ svc: ["a", { ips: "10.0.0.1", pool: "vip" }], want: /is in address pool shared, but the Service asks for pool vip/ }] },
  { name: "a requested address of the wrong family", pools: DUAL, steps: [{ svc: ["a", { families: ["IPv4"], ips: "2001:db8::1" }], want: /2001:db8::1 is IPv6, but the Service has ipFamilies IPv4/ }] },
  { name: "without ipFamilies, the requested address decides the family", pools: DUAL, steps: [{ svc: ["a", { ips: "2001:db8::1" }], want: ["2001:db8::1"] }] },
  { name: "a requested address that is no address", pools: V4, steps: [{ svc: ["a", { ips: "ten.0.0.1" }], want: /"ten.0.0.1" is not an IP address/ }] },
  { name: "two requested addresses of one family", pools: V4, steps: [{ svc: ["a", { ips: "10.0.0.1,10.0.0.2" }], want: /at most one address per IP family/ }] },
  { name: "requested for one family, allocated for the other", pools: DUAL, steps: [{ svc: ["a", { families: ["IPv4", "IPv6"], ips: "2001:db8::3" }], want: ["10.0.0.0", "2001:db8::3"] }] },
  // Sharing (MetalLB allow-shared-ip rules).
  { name: "same key, other ports: one address", pools: V4, steps: [{ svc: ["a", { share: "k", ports: [80] }], want: ["10.0.0.0"] }, { svc: ["b", { share: "k", ports: [443] }], want: ["10.0.0.0"] }] },
  { name: "same key, same port: another address", pools: V4, steps: [{ svc: ["a", { share: "k", ports: [80] }], want: ["10.0.0.0"] }, { svc: ["b", { share: "k", ports: [80] }], want: ["10.0.0.1"] }] },
  { name: "same port number, other protocol: shared", pools: V4, steps: [{ svc: ["a", { share: "k", ports: ["TCP/53"] }], want: ["10.0.0.0"] }, { svc: ["b", { share: "k", ports: ["UDP/53"] }], want: ["10.0.0.0"] }] },
  { name: "different keys never share", pools: V4, steps: [{ svc: ["a", { share: "k", ports: [80] }], want: ["10.0.0.0"] }, { svc: ["b", { share: "j", ports: [443] }], want: ["10.0.0.1"] }] },
  { name: "no key never shares", pools: V4, steps: [{ svc: ["a", { share: "k", ports: [80] }], want: ["10.0.0.0"] }, { svc: ["b", { ports: [443] }], want: ["10.0.0.1"] }] },
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
  { name: "a requested shared address", pools: V4, steps: [{ svc: ["a", { share: "k", ports: [80] }], want: ["10.0.0.0"] }, { svc: ["b", { share: "k", ports: [443], ips: "10.0.0.0" }], want: ["10.0.0.0"] }] },
  {
    name: "a requested shared address whose port is taken",
    pools: V4,
    steps: [{ svc: ["a", { share: "k", ports: [80] }], want: ["10.0.0.0"] }, { svc: ["b", { share: "k", ports: [80], ips: "10.0.0.0" }], want: /it is used by default\/a, which already uses port TCP\/80 on it/ }],
  },
  {
    name: "sharing in a full pool; a Service without the key finds no room",
    pools: ONE_ADDRESS,
    steps: [{ svc: ["a", { share: "k", ports: [80] }], want: ["10.0.0.9"] }, { svc: ["b", { share: "k", ports: [443] }], want: ["10.0.0.9"] }, { svc: ["c"], want: /no free IPv4 address/ }],
  },
  {
    name: "a Service that now clashes with its co-sharer moves, with a remark",
    pools: V4,
    steps: [
      { svc: ["a", { share: "k", ports: [80] }], want: ["10.0.0.0"] },
      { svc: ["b", { share: "k", ports: [443] }], want: ["10.0.0.0"] },
      { svc: ["b", { share: "k", ports: [80] }], want: ["10.0.0.1"], remark: /address 10.0.0.0 is not available: .*port TCP\/80.*; moved to 10.0.0.1/ },
    ],
  },
];

describe("allocator", () => {
  for (const c of cases) {
    test(c.name, () => {
      const r = run(settingsFrom(c.pools));
      for (const step of c.steps) {
        const got = r.ensure(service(...step.svc));
        if (step.want instanceof RegExp) expect(got.problem ?? `no problem, got ${JSON.stringify(got.addresses)}`).toMatch(step.want);
        else expect(got.addresses ?? got.problem).toEqual(step.want);
        if (step.remark) expect(got.remarks?.join("\n")).toMatch(step.remark);
      }
    });
  }

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
    expect(r.ensure(service("b", { ips: "10.0.0.0" })).problem).toMatch(/not available: it is used by default\/a, which does not share/);
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

  test("an address that left every pool is replaced on the next sync", () => {
    const table = new AllocationTable();
    expect(run(settingsFrom(V4), table).ensure(service("a")).addresses).toEqual(["10.0.0.0"]);
    const moved = run(settingsFrom(`{ pools: [{ name: p2, addresses: ["10.9.0.0/30"] }] }`), table).ensure(service("a"));
    expect(moved.addresses).toEqual(["10.9.0.0"]);
    expect(moved.remarks?.join()).toMatch(/address 10.0.0.0 is not in any address pool; moved to 10.9.0.0/);
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

  const cases: { name: string; services: Service[]; holds: Record<string, { addresses: string[]; retiring?: string[] }>; remark?: RegExp }[] = [
    { name: "from the status", services: [service("a", { status: ["10.0.0.2"] })], holds: { a: { addresses: ["10.0.0.2"] } } },
    { name: "from the announce annotation alone (died before the status write)", services: [service("a", { announced: "10.0.0.2" })], holds: { a: { addresses: ["10.0.0.2"] } } },
    {
      name: "the annotation is newer than the status; the status address is retiring",
      services: [service("a", { status: ["10.0.0.1"], announced: "10.0.0.2" })],
      holds: { a: { addresses: ["10.0.0.2"], retiring: ["10.0.0.1"] } },
    },
    { name: "addresses outside every pool are not ours", services: [service("a", { status: ["192.0.2.7"] })], holds: {} },
    {
      name: "a Service being deleted holds nothing, but what it shows stays taken",
      services: [service("a", { status: ["10.0.0.1"], deleting: true })],
      holds: { a: { addresses: [], retiring: ["10.0.0.1"] } },
    },
    {
      name: "a stale status never takes an address from its current holder",
      services: [service("old", { status: ["10.0.0.1"], created: "2025-01-01T00:00:00Z", deleting: true }), service("new", { status: ["10.0.0.1"], announced: "10.0.0.1" })],
      holds: { new: { addresses: ["10.0.0.1"] }, old: { addresses: [], retiring: [] } },
    },
    {
      name: "a conflict left by hand keeps the older Service",
      services: [service("young", { status: ["10.0.0.1"], created: "2026-02-01T00:00:00Z" }), service("old", { status: ["10.0.0.1"], created: "2025-01-01T00:00:00Z" })].sort((a, b) =>
        (a.metadata.creationTimestamp ?? "").localeCompare(b.metadata.creationTimestamp ?? ""),
      ),
      holds: { old: { addresses: ["10.0.0.1"] } },
      remark: /default\/young: not restoring 10.0.0.1: it is used by default\/old/,
    },
    {
      name: "sharing Services are restored together",
      services: [service("a", { status: ["10.0.0.1"], share: "k", ports: [80] }), service("b", { status: ["10.0.0.1"], share: "k", ports: [443] })],
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
        else expect({ addresses: got?.addresses, retiring: got?.retiring }).toEqual({ addresses: want.addresses, retiring: want.retiring ?? [] });
      }
      if (c.remark) expect(remarks.join("\n")).toMatch(c.remark);
      else expect(remarks).toEqual([]);
    });
  }

  test("after a restore, new Services get only addresses nobody shows", () => {
    const { r } = restored([service("a", { status: ["10.0.0.0"] }), service("b", { announced: "10.0.0.2" }), service("c", { status: ["10.0.0.3"], deleting: true })]);
    expect(r.ensure(service("d")).addresses).toEqual(["10.0.0.1"]);
    expect(r.ensure(service("e")).problem).toMatch(/no free IPv4 address/);
    expect(r.ensure(service("a")).addresses).toEqual(["10.0.0.0"]);
  });
});
