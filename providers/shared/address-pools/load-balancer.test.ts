import { describe, expect, test } from "bun:test";
import type { LoadBalancer } from "../../../src/cloud/provider.ts";
import type { Service } from "../../../src/kube/objects.ts";
import { createLogger } from "../../../src/log/logger.ts";
import { patchRecorder, providerInit, service, settingsFrom } from "./fixtures.test-support.ts";
import { createSourcedLoadBalancer } from "./pool-source.ts";

const logger = createLogger({ verbosity: 0, format: "text", write: () => undefined });

/** The file-sourced load balancer over `pools` (YAML), with the Service cache `services`. */
function loadBalancer(pools: string, services: () => readonly Service[] = () => []): LoadBalancer {
  const settings = settingsFrom(pools);
  const sourced = createSourcedLoadBalancer({ settings: () => settings, logger, observeCall: () => undefined });
  sourced.initialize(providerInit({ services, kube: patchRecorder().kube }));
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
});
