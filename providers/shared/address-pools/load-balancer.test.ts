import { describe, expect, test } from "bun:test";
import type { LoadBalancer, LoadBalancerChange } from "../../../src/cloud/provider.ts";
import { InformerCache } from "../../../src/kube/informer-cache.ts";
import type { InformerView } from "../../../src/kube/informer.ts";
import type { KubeObject, Service } from "../../../src/kube/objects.ts";
import { createLogger } from "../../../src/log/logger.ts";
import { parseIP } from "../../../src/net/ip.ts";
import { namespace, patchRecorder, providerInit, service, settingsFrom, syncedCache } from "./fixtures.test-support.ts";
import { createSourcedLoadBalancer } from "./pool-source.ts";
import { judgingPools } from "./pools.ts";

const logger = createLogger({ verbosity: 0, format: "text", write: () => undefined });

/** The file-sourced load balancer over `pools` (YAML), with the Service cache `services`. */
function loadBalancer(
  pools: string,
  services: () => readonly Service[] = () => [],
  namespaces?: () => InformerView<KubeObject>,
): LoadBalancer {
  const settings = settingsFrom(pools);
  const sourced = createSourcedLoadBalancer({ settings: () => settings, logger, observeCall: () => undefined });
  sourced.initialize(providerInit({ services, namespaces, kube: patchRecorder().kube }));
  return sourced.lb.loadBalancer;
}

const ips = (status: { ingress?: { ip?: string }[] }): string[] => (status.ingress ?? []).map((i) => i.ip ?? "");
const shown = (svc: Service, addresses: readonly string[]): Service => ({
  ...svc,
  status: { loadBalancer: { ingress: addresses.map((ip) => ({ ip })) } },
});

describe("address-pool load balancer", () => {
  test("a re-created member of a sharing group gets its group's address back", async () => {
    let cache: Service[] = [];
    const lb = loadBalancer(`{ pools: [{ name: p, addresses: ["10.0.0.0/29"] }] }`, () => cache);
    const tcp = service("dns-tcp", { share: "k", ports: ["TCP/53"] });
    const udp = service("dns-udp", { share: "k", ports: ["UDP/53"] });
    cache = [tcp, udp];
    const address = ips((await lb.ensureLoadBalancer("c", tcp, [])).status);
    expect(ips((await lb.ensureLoadBalancer("c", udp, [])).status)).toEqual(address);
    const deleting = {
      ...shown(tcp, address),
      metadata: { ...tcp.metadata, deletionTimestamp: "2026-01-02T00:00:00Z" },
    };
    await lb.ensureLoadBalancerDeleted("c", deleting);
    const again = service("dns-tcp", { share: "k", ports: ["TCP/53"], uid: "new-uid" });
    cache = [again, shown(udp, address)];
    const ensured = await lb.ensureLoadBalancer("c", again, []);
    expect(ips(ensured.status)).toEqual(address);
    expect(ensured.warnings).toEqual([]);
  });

  test("an address only the announce annotation shows is kept after a restart only if its pools serve the Service, as while running", async () => {
    const pools = `{ pools: [
      { name: a, namespaces: [team-a], addresses: ["10.0.0.0/29"] },
      { name: b, namespaces: [team-b], addresses: ["10.9.0.0/30"] } ] }`;
    const services = [
      service("other-pool", { ns: "team-a", announced: "10.9.0.1" }),
      service("no-pool", { ns: "team-a", announced: "192.168.1.1" }),
      service("edited", { ns: "team-a", status: ["10.0.0.5"], announced: "10.9.0.2" }),
      service("crashed", { ns: "team-a", announced: "10.0.0.6" }),
    ];
    const restarted = loadBalancer(pools, () => services);
    const running = loadBalancer(pools);
    // The running provider holds what it wrote: the status address, or the one it died after announcing.
    for (const [name, held] of [
      ["edited", "10.0.0.5"],
      ["crashed", "10.0.0.6"],
    ])
      await running.ensureLoadBalancer("c", service(name!, { ns: "team-a", ips: held }), []);
    const got = async (lb: LoadBalancer): Promise<string[][]> =>
      Promise.all(services.map(async (svc) => ips((await lb.ensureLoadBalancer("c", svc, [])).status)));
    const want = [["10.0.0.0"], ["10.0.0.1"], ["10.0.0.5"], ["10.0.0.6"]];
    expect(await got(restarted)).toEqual(want);
    expect(await got(running)).toEqual(want);
  });

  test("a cluster moved from MetalLB keeps its shared address across a restart", async () => {
    const shared = { "metallb.universe.tf/allow-shared-ip": "k" };
    const a = service("a", { status: ["10.0.0.1"], ports: [80], annotations: shared });
    const b = service("b", {
      status: ["10.0.0.1"],
      ports: [443],
      annotations: shared,
      created: "2026-01-01T00:00:01Z",
    });
    const lb = loadBalancer(`{ pools: [{ name: p, addresses: ["10.0.0.0/29"] }] }`, () => [a, b]);
    for (const svc of [b, a]) {
      const ensured = await lb.ensureLoadBalancer("c", svc, []);
      expect({ ips: ips(ensured.status), warnings: ensured.warnings }).toEqual({ ips: ["10.0.0.1"], warnings: [] });
    }
  });

  test("a MetalLB annotation the provider writes as an announce annotation is not read as a request", async () => {
    const pools = `{ announceAnnotations: [metallb.io/loadBalancerIPs], pools: [{ name: p, addresses: ["10.0.0.0/29"] }] }`;
    const svc = service("a", { annotations: { "metallb.io/loadBalancerIPs": "192.0.2.1" }, status: ["10.0.0.3"] });
    const ensured = await loadBalancer(pools, () => [svc]).ensureLoadBalancer("c", svc, []);
    expect(ips(ensured.status)).toEqual(["10.0.0.3"]);
  });

  test("a namespace selector on kubernetes.io/metadata.name matches, with no Namespace read", async () => {
    const pools = `{ pools: [
      { name: open, addresses: ["10.0.0.0/30"] },
      { name: gold, namespaceSelectors: [{ matchLabels: { "kubernetes.io/metadata.name": team-c } }], addresses: ["10.9.0.0/30"] } ] }`;
    const lb = loadBalancer(pools);
    expect(ips((await lb.ensureLoadBalancer("c", service("a", { ns: "team-c" }), [])).status)).toEqual(["10.9.0.0"]);
    expect(ips((await lb.ensureLoadBalancer("c", service("a", { ns: "team-d" }), [])).status)).toEqual(["10.0.0.0"]);
  });

  test("namespace selectors match the Namespace's real labels, and a relabel asks for that namespace's Services again", async () => {
    const pools = `{ pools: [
      { name: open, addresses: ["10.0.0.0/30"] },
      { name: gold, namespaceSelectors: [{ matchLabels: { tier: gold } }], addresses: ["10.9.0.0/30"] } ] }`;
    const cache = syncedCache("namespaces", [namespace("team-c", { tier: "gold" }), namespace("team-d")]);
    let asked = 0;
    const lb = loadBalancer(pools, undefined, () => (asked++, cache));
    const changes: LoadBalancerChange[] = [];
    lb.onChange?.((change) => changes.push(change));
    expect(ips((await lb.ensureLoadBalancer("c", service("a", { ns: "team-c" }), [])).status)).toEqual(["10.9.0.0"]);
    expect(ips((await lb.ensureLoadBalancer("c", service("b", { ns: "team-d" }), [])).status)).toEqual(["10.0.0.0"]);
    expect(ips((await lb.ensureLoadBalancer("c", service("n", { ns: "team-new" }), [])).status)).toEqual(["10.0.0.1"]);
    expect(asked).toBe(1);
    cache.upsert(namespace("team-d", { tier: "gold" }));
    cache.upsert(namespace("team-new", { tier: "gold" }));
    cache.upsert(namespace("team-c", { tier: "gold" })); // the same labels: nothing to do
    expect(changes).toEqual([{ namespace: "team-d" }, { namespace: "team-new" }]);
    expect(ips((await lb.ensureLoadBalancer("c", service("e", { ns: "team-d" }), [])).status)).toEqual(["10.9.0.1"]);
  });

  test("pools that select no namespace by label never ask for Namespaces", async () => {
    let asked = 0;
    const lb = loadBalancer(
      `{ pools: [{ name: p, namespaces: [team-a], addresses: ["10.0.0.0/30"] }] }`,
      undefined,
      () => {
        asked++;
        return syncedCache("namespaces");
      },
    );
    expect(ips((await lb.ensureLoadBalancer("c", service("a", { ns: "team-a" }), [])).status)).toEqual(["10.0.0.0"]);
    expect(asked).toBe(0);
  });

  test("Namespaces unreadable (forbidden, slow): a Service no label-selecting pool could judge is served at once", async () => {
    const pools = `{ pools: [
      { name: team, namespaces: [team-a], addresses: ["10.0.0.0/30"] },
      { name: gold, autoAssign: false, namespaceSelectors: [{ matchLabels: { tier: gold } }], addresses: ["10.9.0.0/30"] } ] }`;
    let asked = 0;
    const never = new InformerCache<KubeObject>("namespaces", logger);
    const lb = loadBalancer(pools, undefined, () => (asked++, never));
    const served = lb.ensureLoadBalancer("c", service("a", { ns: "team-a" }), []).then((r) => ips(r.status));
    // Its 10 s wait for the Namespaces would lose this race by far.
    expect(await Promise.race([served, Bun.sleep(2_000).then(() => "waited")])).toEqual(["10.0.0.0"]);
    expect(asked).toBe(0);
  });
});

describe("pools that may judge a Service by its Namespace's labels", () => {
  const pools = settingsFrom(`{ pools: [
    { name: open, addresses: ["10.0.0.0/30"] },
    { name: auto, namespaceSelectors: [{ matchLabels: { tier: gold } }], addresses: ["10.1.0.0/30"] },
    { name: manual, autoAssign: false, namespaceSelectors: [{ matchLabels: { tier: gold } }], addresses: ["10.2.0.0/30"] },
    { name: listed, namespaces: [team-a], namespaceSelectors: [{ matchLabels: { tier: gold } }], addresses: ["10.3.0.0/30"] },
    { name: picky, serviceSelectors: [{ matchLabels: { app: web } }], namespaceSelectors: [{ matchLabels: { tier: gold } }], addresses: ["10.4.0.0/30"] } ] }`).pools;
  const cases: { name: string; pool?: string; address?: string; labels?: Record<string, string>; want: string[] }[] = [
    { name: "any autoAssign pool selecting by label, unless it lists the namespace", want: ["auto"] },
    { name: "a Service naming a pool: that pool only", pool: "manual", want: ["manual"] },
    { name: "a Service naming a pool that selects by no label: none", pool: "open", want: [] },
    { name: "a pool holding an address the Service has", pool: "open", address: "10.2.0.1", want: ["manual"] },
    { name: "a pool whose Service selectors accept it", labels: { app: "web" }, want: ["auto", "picky"] },
  ];
  for (const c of cases)
    test(c.name, () => {
      const judged = {
        namespace: "team-a",
        serviceLabels: c.labels ?? {},
        pool: c.pool,
        addresses: c.address ? [parseIP(c.address)!] : [],
      };
      expect(judgingPools(pools, judged).map((p) => p.name)).toEqual(c.want);
    });
});
