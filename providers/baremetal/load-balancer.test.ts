import { describe, expect, test } from "bun:test";
import type { LoadBalancer, LoadBalancerChange } from "../../src/cloud/provider.ts";
import type { Service } from "../../src/kube/objects.ts";
import { KubeApiError } from "../../src/kube/transport.ts";
import { testProviderContext } from "../../test/harness/provider-context.ts";
import { parseBaremetalConfig } from "./config.ts";
import {
  KEYS,
  KUBE_VIP,
  SHARE,
  patchRecorder,
  providerInit,
  service,
  syncedCache,
  type RecordedPatch,
} from "../shared/address-pools/fixtures.test-support.ts";
import { followProviderChanges } from "../../src/controllers/service-lb-controller/provider-changes.ts";
import { WorkQueue } from "../../src/kube/queue.ts";
import { exponentialLimiter } from "../../src/kube/rate-limiters.ts";
import { createBaremetalProvider, type BaremetalProvider } from "./provider.ts";

const FROM = KEYS.allocatedFrom;

const POOLS = `
loadBalancers:
  pools:
    - { name: small, addresses: ["10.0.0.0/28"] }
    - { name: v6, addresses: ["2001:db8::/120"] }
`;

function provider(yaml = POOLS, lines: string[] = []): BaremetalProvider & { lb: LoadBalancer } {
  const parsed = parseBaremetalConfig(yaml);
  if (!parsed.ok) throw new Error(parsed.errors.join("; "));
  const p = createBaremetalProvider({ config: parsed.config, path: "" }, testProviderContext([], lines));
  if (!p.loadBalancer) throw new Error("no load balancer");
  return { ...p, lb: p.loadBalancer };
}

const ips = (status: { ingress?: { ip?: string }[] }): string[] => (status.ingress ?? []).map((i) => i.ip ?? "");
const message = (promise: Promise<unknown>): Promise<string> =>
  promise.then(
    () => "resolved",
    (error: unknown) => (error as Error).message,
  );

/** What the cluster holds after a patch: the Service with the patched annotations. */
function applied(svc: Service, patches: readonly RecordedPatch[]): Service {
  const annotations: Record<string, string> = { ...svc.metadata.annotations };
  for (const p of patches.filter(
    (x) => x.name === svc.metadata.name && x.namespace === svc.metadata.namespace && !x.subresource,
  )) {
    for (const [k, v] of Object.entries(p.body.metadata.annotations)) {
      if (v === null) delete annotations[k];
      else annotations[k] = v;
    }
  }
  return { ...svc, metadata: { ...svc.metadata, annotations } };
}

/** Two Services on one address only when both carry the same sharing key and use different ports. */
function expectNoDuplicates(addresses: ReadonlyMap<string, string[]>, services: readonly Service[]): void {
  const owners = new Map<string, string[]>();
  for (const [name, list] of addresses) for (const ip of list) owners.set(ip, [...(owners.get(ip) ?? []), name]);
  for (const [ip, names] of owners) {
    if (names.length === 1) continue;
    const sharers = names.map((n) => services.find((s) => s.metadata.name === n));
    expect({ ip, keys: sharers.map((s) => s?.metadata.annotations?.[SHARE]) }).toEqual({
      ip,
      keys: sharers.map(() => "pair"),
    });
    expect(new Set(sharers.map((s) => s?.spec?.ports?.[0]?.port)).size).toBe(sharers.length);
  }
}

describe("bare-metal load balancer", () => {
  test("no loadBalancers section: no load-balancer capability, so the service controller stays off", () => {
    const parsed = parseBaremetalConfig("inventory: {}");
    const p = parsed.ok
      ? createBaremetalProvider({ config: parsed.config, path: "" }, testProviderContext())
      : undefined;
    expect(p?.loadBalancer).toBeUndefined();
    expect(p?.routes).toBeUndefined();
  });

  test("refuses to allocate before initialize, and waits for the cache before the first decision", async () => {
    const p = provider();
    expect(await message(p.lb.ensureLoadBalancer("c", service("a"), []))).toMatch(/not initialised/);
    let sync = (_: boolean): void => undefined;
    const { kube } = patchRecorder();
    await p.initialize?.(
      providerInit({
        kube,
        synced: new Promise((resolve) => (sync = resolve)),
        services: () => [service("old", { status: ["10.0.0.0"] })],
      }),
    );
    const pending = p.lb.ensureLoadBalancer("c", service("a"), []);
    sync(true);
    expect(ips((await pending).status)).toEqual(["10.0.0.1"]);
  });

  test("writes the address to the announce annotation (merge patch, UID precondition) before returning it", async () => {
    const p = provider();
    const { kube, patches } = patchRecorder();
    await p.initialize?.(providerInit({ kube }));
    const svc = service("web", { ns: "shop", families: ["IPv4", "IPv6"] });
    const ensured = await p.lb.ensureLoadBalancer("c", svc, []);
    expect(ensured.status).toEqual({
      ingress: [
        { ip: "10.0.0.0", ipMode: "VIP" },
        { ip: "2001:db8::", ipMode: "VIP" },
      ],
    });
    expect(patches).toEqual([
      {
        name: "web",
        namespace: "shop",
        body: {
          metadata: { annotations: { [KUBE_VIP]: "10.0.0.0,2001:db8::", [FROM]: "small,v6" }, uid: "uid-shop-web" },
        },
      },
    ]);
    await p.lb.ensureLoadBalancer("c", applied(svc, patches), []);
    expect(patches).toHaveLength(1);
    expect(await p.lb.getLoadBalancer("c", svc)).toEqual({ exists: true, status: ensured.status });
  });

  test("per-Service problems are errors naming the problem; other Services keep working", async () => {
    const p = provider(`loadBalancers: { pools: [{ name: tiny, addresses: ["10.0.0.1-10.0.0.2"] }] }`);
    const cluster = ["a", "b", "c"].map((name) => service(name));
    await p.initialize?.(providerInit({ kube: patchRecorder().kube, services: () => cluster }));
    expect(ips((await p.lb.ensureLoadBalancer("c", service("a"), [])).status)).toEqual(["10.0.0.1"]);
    expect(await message(p.lb.ensureLoadBalancer("c", service("b", { ips: "10.0.0.1" }), []))).toMatch(
      /^requested address 10.0.0.1 is not available: it is used by default\/a/,
    );
    expect(await message(p.lb.ensureLoadBalancer("c", service("b", { ips: "192.0.2.1" }), []))).toBe(
      "requested address 192.0.2.1 is not in any address pool",
    );
    expect(await message(p.lb.ensureLoadBalancer("c", service("b", { ips: "bogus" }), []))).toMatch(
      /"bogus" is not an IP address/,
    );
    expect(ips((await p.lb.ensureLoadBalancer("c", service("b"), [])).status)).toEqual(["10.0.0.2"]);
    expect(await message(p.lb.ensureLoadBalancer("c", service("c"), []))).toBe(
      "no free IPv4 address in address pool(s) tiny",
    );
    expect(ips((await p.lb.ensureLoadBalancer("c", service("a"), [])).status)).toEqual(["10.0.0.1"]);
  });

  test("non-fatal remarks become warnings", async () => {
    const p = provider(`loadBalancers: { pools: [{ name: v4, addresses: ["10.0.0.0/30"] }] }`);
    await p.initialize?.(providerInit({ kube: patchRecorder().kube }));
    const ensured = await p.lb.ensureLoadBalancer(
      "c",
      service("a", { families: ["IPv4", "IPv6"], policy: "PreferDualStack" }),
      [],
    );
    expect(ips(ensured.status)).toEqual(["10.0.0.0"]);
    expect(ensured.warnings).toEqual([
      {
        reason: "LoadBalancerAddress",
        message:
          "no IPv6 address (the Service only prefers dual-stack): no address pool offers IPv6 addresses to namespace default",
      },
    ]);
  });

  test("concurrent syncs never hand out one address twice", async () => {
    const p = provider(`loadBalancers: { pools: [{ name: p, addresses: ["10.0.0.0/28"] }] }`);
    const { kube } = patchRecorder(() => Bun.sleep(Math.random() * 5));
    const services = Array.from({ length: 40 }, (_, i) => service(`s${i}`));
    await p.initialize?.(providerInit({ kube, services: () => services }));
    const results = await Promise.allSettled(services.map((s) => p.lb.ensureLoadBalancer("c", s, [])));
    const got = results.flatMap((r) => (r.status === "fulfilled" ? ips(r.value.status) : []));
    expect(got).toHaveLength(16);
    expect(new Set(got).size).toBe(16);
    expect(results.filter((r) => r.status === "rejected").map((r) => (r.reason as Error).message)).toEqual(
      Array<string>(24).fill("no free IPv4 address in address pool(s) p"),
    );
  });

  test("a failed annotation write fails the sync; the retry gets the same address", async () => {
    const p = provider();
    let fail = true;
    const { kube } = patchRecorder(() =>
      fail ? Promise.reject(new KubeApiError(500, "InternalError", "etcd is sad")) : Promise.resolve(),
    );
    await p.initialize?.(providerInit({ kube }));
    expect(await message(p.lb.ensureLoadBalancer("c", service("a"), []))).toBe("etcd is sad");
    fail = false;
    expect(ips((await p.lb.ensureLoadBalancer("c", service("a"), [])).status)).toEqual(["10.0.0.0"]);
    expect(ips((await p.lb.ensureLoadBalancer("c", service("b"), [])).status)).toEqual(["10.0.0.1"]);
  });

  test("delete withdraws the annotation; the address stays taken while the Service still shows it", async () => {
    const p = provider(`loadBalancers: { pools: [{ name: p, addresses: ["10.0.0.1-10.0.0.2"] }] }`);
    const { kube, patches } = patchRecorder();
    let cluster: Service[] = [];
    await p.initialize?.(providerInit({ kube, services: () => cluster }));
    const a = service("a");
    await p.lb.ensureLoadBalancer("c", a, []);
    await p.lb.ensureLoadBalancer("c", service("b"), []);
    const shown = applied(service("a", { status: ["10.0.0.1"] }), patches);
    cluster = [shown, service("b", { status: ["10.0.0.2"] })];
    await p.lb.ensureLoadBalancerDeleted("c", shown);
    expect(patches.at(-1)?.body.metadata.annotations).toEqual({ [KUBE_VIP]: null, [FROM]: null });
    expect(await p.lb.getLoadBalancer("c", a)).toEqual({ exists: false, status: {} });
    expect(await message(p.lb.ensureLoadBalancer("c", service("c"), []))).toMatch(/no free IPv4 address/);
    cluster = [service("b", { status: ["10.0.0.2"] })];
    expect(ips((await p.lb.ensureLoadBalancer("c", service("c"), [])).status)).toEqual(["10.0.0.1"]);
    await p.lb.ensureLoadBalancerDeleted("c", a);
  });

  test("a Service showing only the annotation (left behind) counts as existing, so cleanup runs", async () => {
    const p = provider();
    const { kube, patches } = patchRecorder((patch) =>
      patch.name === "recreated"
        ? Promise.reject(
            new KubeApiError(
              422,
              "Invalid",
              'Service "recreated" is invalid: metadata.uid: Invalid value: "x": field is immutable',
            ),
          )
        : Promise.resolve(),
    );
    await p.initialize?.(providerInit({ kube }));
    expect((await p.lb.getLoadBalancer("c", service("left", { announced: "10.0.0.5" }))).exists).toBe(true);
    expect((await p.lb.getLoadBalancer("c", service("plain"))).exists).toBe(false);
    await p.lb.ensureLoadBalancerDeleted("c", service("recreated", { announced: "10.0.0.5" }));
    await p.lb.ensureLoadBalancerDeleted("c", service("plain"));
    expect(patches.map((x) => x.name)).toEqual(["recreated"]);
  });

  test("restart: rebuilt from what Services show, no duplicates, holders keep their addresses", async () => {
    const yaml = `loadBalancers: { pools: [{ name: p, addresses: ["10.0.0.0/27"] }] }`;
    const before = provider(yaml);
    const first = patchRecorder();
    await before.initialize?.(providerInit({ kube: first.kube }));
    const services = Array.from({ length: 24 }, (_, i) =>
      service(`s${i}`, { share: i % 4 === 0 ? "pair" : undefined, ports: [i % 8 === 0 ? 80 : 443] }),
    );
    const chosen = new Map<string, string[]>();
    for (const s of services) chosen.set(s.metadata.name, ips((await before.lb.ensureLoadBalancer("c", s, [])).status));
    // The crash: s0–s7 were fully written, s8–s15 only got the annotation, s16–s23 nothing at all.
    const persisted = services.map((s, i) => {
      if (i >= 16) return s;
      const withAnnotation = applied(s, first.patches);
      return i < 8
        ? {
            ...withAnnotation,
            status: { loadBalancer: { ingress: chosen.get(s.metadata.name)!.map((ip) => ({ ip })) } },
          }
        : withAnnotation;
    });
    const after = provider(yaml);
    await after.initialize?.(providerInit({ kube: patchRecorder().kube, services: () => persisted }));
    const newcomers = Array.from({ length: 6 }, (_, i) => service(`new${i}`));
    const final = new Map<string, string[]>();
    for (const s of [...newcomers, ...persisted])
      final.set(s.metadata.name, ips((await after.lb.ensureLoadBalancer("c", s, [])).status));
    for (const s of persisted.slice(0, 16)) expect(final.get(s.metadata.name)).toEqual(chosen.get(s.metadata.name));
    expectNoDuplicates(final, [...persisted, ...newcomers]);
  });

  test("restart after a pool was removed: the address is kept, with a Warning naming pool and address and a False condition", async () => {
    const before = provider(
      `loadBalancers: { pools: [{ name: main, addresses: ["10.0.0.0/28"] }, { name: extra, addresses: ["198.51.100.64/28"] }] }`,
    );
    const first = patchRecorder();
    await before.initialize?.(providerInit({ kube: first.kube }));
    const svc = service("web", { ns: "shop", pool: "extra" });
    const got = ips((await before.lb.ensureLoadBalancer("c", svc, [])).status);
    expect(got).toEqual(["198.51.100.64"]);
    const persisted: Service = {
      ...applied(svc, first.patches),
      status: { loadBalancer: { ingress: [{ ip: "198.51.100.64" }] } },
    };
    delete persisted.metadata.annotations?.[KEYS.addressPool];

    const lines: string[] = [];
    const after = provider(`loadBalancers: { pools: [{ name: main, addresses: ["10.0.0.0/28"] }] }`, lines);
    const second = patchRecorder();
    await after.initialize?.(providerInit({ kube: second.kube, services: () => [persisted] }));
    const ensured = await after.lb.ensureLoadBalancer("c", persisted, []);
    expect(ips(ensured.status)).toEqual(["198.51.100.64"]);
    expect(ensured.warnings?.map((w) => w.reason)).toEqual(["LoadBalancerAddressKept"]);
    expect(ensured.warnings?.[0]?.message).toMatch(/^kept 198.51.100.64 \(pool extra\): it is not in any address pool/);
    const condition = second.patches.find((x) => x.subresource === "status")?.body.status?.conditions[0];
    expect(condition).toMatchObject({ type: KEYS.conditionType, status: "False", reason: "OutsidePools" });
    expect(second.patches.filter((x) => !x.subresource)).toEqual([]);
    expect(lines.join("\n")).toMatch(
      /restored the load-balancer addresses of 1 Service\(s\) from the cluster; 1 of them hold addresses outside every pool, kept/,
    );

    const flagged: Service = { ...persisted, status: { ...persisted.status, conditions: [condition!] } };
    await after.lb.ensureLoadBalancer("c", flagged, []);
    expect(second.patches.filter((x) => x.subresource === "status")).toHaveLength(1);
  });

  test("a Service whose address was lost on restore gets a Warning for the move (the safety net)", async () => {
    const p = provider(`loadBalancers: { pools: [{ name: p, addresses: ["10.0.0.0/30"] }] }`);
    const old = service("old", { status: ["10.0.0.1"], created: "2025-01-01T00:00:00Z" });
    const young = service("young", { status: ["10.0.0.1"], created: "2026-02-01T00:00:00Z" });
    await p.initialize?.(providerInit({ kube: patchRecorder().kube, services: () => [young, old] }));
    const ensured = await p.lb.ensureLoadBalancer("c", young, []);
    expect(ips(ensured.status)).toEqual(["10.0.0.0"]);
    expect(ensured.warnings).toEqual([
      { reason: "LoadBalancerAddressMoved", message: "moved from 10.0.0.1 to 10.0.0.0: the address could not be kept" },
    ]);
  });

  test("restart: a newer Service's status address stays its own against an older Service's annotation-only claim", async () => {
    const p = provider(`loadBalancers: { pools: [{ name: p, addresses: ["10.0.0.0/29"] }] }`);
    const x = service("x", { announced: "10.0.0.5", created: "2025-01-01T00:00:00Z" });
    const y = service("y", { status: ["10.0.0.5"], created: "2026-02-01T00:00:00Z" });
    await p.initialize?.(providerInit({ kube: patchRecorder().kube, services: () => [x, y] }));
    const ensured = await p.lb.ensureLoadBalancer("c", y, []);
    expect(ips(ensured.status)).toEqual(["10.0.0.5"]);
    expect(ensured.warnings).toEqual([]);
    expect(ips((await p.lb.ensureLoadBalancer("c", x, [])).status)).toEqual(["10.0.0.0"]);
  });

  test("a pool of one address: B waits; once A is gone from the Service cache, B is queued at once, ahead of its backoff, and gets the address", async () => {
    const p = provider(`loadBalancers: { pools: [{ name: one, addresses: ["10.0.0.1/32"] }] }`);
    const { kube, patches } = patchRecorder();
    const cache = syncedCache<Service>("services");
    const stopped = new AbortController();
    await p.initialize?.(providerInit({ kube, serviceCache: cache, signal: stopped.signal }));
    // The service controller's side, as it runs: its queue (backoff 5 s → 300 s) and the change follower.
    const queue = new WorkQueue({ name: "service", rateLimiter: exponentialLimiter(5_000, 300_000) });
    const stop = followProviderChanges({ balancer: p.lb, services: cache, queue, servedClass: "" });
    // The follower passes once the turn is over (a timer of 0 ms for the first pass).
    const turn = (): Promise<void> => Bun.sleep(20);
    try {
      const a = service("a");
      cache.upsert(a);
      expect(ips((await p.lb.ensureLoadBalancer("c", a, [])).status)).toEqual(["10.0.0.1"]);
      const shownA = { ...applied(a, patches), status: { loadBalancer: { ingress: [{ ip: "10.0.0.1" }] } } };
      cache.upsert(shownA);
      const b = service("b");
      cache.upsert(b);
      expect(await message(p.lb.ensureLoadBalancer("c", b, []))).toBe("no free IPv4 address in address pool(s) one");
      queue.addRateLimited("default/b");
      for (let i = 0; i < 3; i++) queue.addRateLimited("default/b"); // failed again and again: 40 s to wait
      // Deleted, but its status still shows the address: nothing is free yet, nothing is queued.
      await p.lb.ensureLoadBalancerDeleted("c", shownA);
      await turn();
      expect(queue.length).toBe(0);
      cache.remove(shownA);
      await turn();
      expect(queue.length).toBe(1);
      expect(await queue.get()).toBe("default/b");
      expect(ips((await p.lb.ensureLoadBalancer("c", b, [])).status)).toEqual(["10.0.0.1"]);
    } finally {
      stop();
      stopped.abort();
      queue.shutDown();
    }
  });

  test("a live edit of the cloud-config that changes the pools asks for every Service again; one that keeps them does not", async () => {
    const p = provider(`loadBalancers: { pools: [{ name: one, addresses: ["10.0.0.1/32"] }] }`);
    await p.initialize?.(providerInit({ kube: patchRecorder().kube }));
    const changes: LoadBalancerChange[] = [];
    p.lb.onChange?.((change) => changes.push(change));
    const edit = (yaml: string): void => {
      const parsed = parseBaremetalConfig(yaml);
      if (!parsed.ok) throw new Error(parsed.errors.join("; "));
      p.apply(parsed.config);
    };
    edit(`loadBalancers: { pools: [{ name: one, addresses: ["10.0.0.1/32"] }] }`);
    expect(changes).toEqual([]);
    edit(`loadBalancers: { pools: [{ name: one, addresses: ["10.0.0.1-10.0.0.2"] }] }`);
    expect(changes).toEqual([{}]);
  });
});
