/**
 * The bare-metal provider on the real kube-apiserver, as the restricted CCM identity, driven directly (its
 * own informers, no controllers): the announce annotation write is allowed by the shipped RBAC, a restart
 * rebuilds the allocation table from real Services, and a Service re-created under the same name is never
 * written to by mistake.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { CloudProvider } from "../../src/cloud/provider.ts";
import { createKubeApi, NAMESPACES, SERVICES, type KubeApi } from "../../src/kube/api.ts";
import { resolveConnection } from "../../src/kube/kubeconfig.ts";
import { createSharedInformers } from "../../src/kube/informers.ts";
import type { Service } from "../../src/kube/objects.ts";
import { TokenBucket } from "../../src/kube/token-bucket.ts";
import { createTransport } from "../../src/kube/transport.ts";
import { createLogger } from "../../src/log/logger.ts";
import { parseBaremetalConfig } from "../../providers/baremetal/index.ts";
import { createBaremetalProvider } from "../../providers/baremetal/provider.ts";
import { controlPlane } from "../harness/control-plane.ts";
import { loadBalancerService, uniqueName } from "../harness/fixtures.ts";
import { testProviderContext } from "../harness/provider-context.ts";

const KUBE_VIP = "kube-vip.io/loadbalancerIPs";

async function restrictedApi(kubeconfig: string): Promise<KubeApi> {
  const connection = await resolveConnection({ kubeconfig, master: "" });
  return createKubeApi(
    createTransport({ connection, limiter: TokenBucket.create(0, 0), userAgent: "baremetal-provider-test" }),
  );
}

describe("baremetal provider on the real API server (restricted identity, no controllers)", () => {
  let admin: KubeApi;
  let ccm: KubeApi;
  let ns: string;
  const stops: AbortController[] = [];

  beforeAll(async () => {
    const cp = await controlPlane();
    admin = cp.admin;
    ccm = await restrictedApi(cp.kubeconfigs.ccm);
    ns = uniqueName("bm-provider");
    await admin.create(NAMESPACES, { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } });
  });
  afterAll(() => {
    for (const s of stops) s.abort();
  });

  /** A provider as the leader would run it: its own informers over the restricted identity. */
  async function leader(): Promise<CloudProvider> {
    const parsed = parseBaremetalConfig(
      `loadBalancers: { pools: [{ name: p, namespaces: [${ns}], addresses: ["172.30.0.0/29", "fd00:172:30::/125"] }] }`,
    );
    if (!parsed.ok) throw new Error(parsed.errors.join("; "));
    const provider = createBaremetalProvider({ config: parsed.config, path: "" }, testProviderContext());
    const stop = new AbortController();
    stops.push(stop);
    const informers = createSharedInformers({
      api: ccm,
      logger: createLogger({ verbosity: 0, format: "text", write: () => undefined }),
    });
    await provider.initialize?.({
      signal: stop.signal,
      nodes: informers.nodes(),
      services: informers.services(),
      waitForSync: (s) => informers.waitForSync(s),
      kube: ccm,
    });
    void informers.run(stop.signal);
    return provider;
  }

  const create = (svc: Service): Promise<Service> => admin.create(SERVICES, svc, { namespace: ns });

  test("writes the announce annotation as the restricted identity, and restores from real Services after a restart", async () => {
    const first = await leader();
    const web = await create(loadBalancerService("web", ns, { ipFamilies: ["IPv4", "IPv6"] }));
    const ensured = await first.loadBalancer!.ensureLoadBalancer("kubernetes", web, []);
    expect(ensured.status.ingress?.map((i) => i.ip)).toEqual(["172.30.0.0", "fd00:172:30::"]);
    const written = await admin.get<Service>(SERVICES, "web", { namespace: ns });
    expect(written.metadata.annotations?.[KUBE_VIP]).toBe("172.30.0.0,fd00:172:30::");

    // A status written by hand (as the service controller would), and a crash before any status write.
    const shown = await create(loadBalancerService("shown", ns));
    await admin.patch(
      SERVICES,
      "shown",
      { status: { loadBalancer: { ingress: [{ ip: "172.30.0.4" }] } } },
      { namespace: ns, subresource: "status", type: "merge" },
    );
    await create({
      ...loadBalancerService("announced", ns),
      metadata: { name: "announced", namespace: ns, annotations: { [KUBE_VIP]: "172.30.0.5" } },
    });

    const second = await leader();
    const fresh = await create(loadBalancerService("fresh", ns));
    const got: string[] = [];
    for (let i = 0; i < 4; i++) {
      const svc = i === 0 ? fresh : await create(loadBalancerService(`more-${i}`, ns));
      got.push(
        ...((await second.loadBalancer!.ensureLoadBalancer("kubernetes", svc, [])).status.ingress ?? []).map(
          (x) => x.ip ?? "",
        ),
      );
    }
    expect(got).toEqual(["172.30.0.1", "172.30.0.2", "172.30.0.3", "172.30.0.6"]);
    const again = await second.loadBalancer!.ensureLoadBalancer("kubernetes", written, []);
    expect(again.status.ingress?.map((i) => i.ip)).toEqual(["172.30.0.0", "fd00:172:30::"]);
    expect(
      (await second.loadBalancer!.ensureLoadBalancer("kubernetes", shown, [])).status.ingress?.map((i) => i.ip),
    ).toEqual(["172.30.0.4"]);
  });

  test("never writes to a Service re-created under the same name", async () => {
    const provider = await leader();
    const old = await create(loadBalancerService("reborn", ns));
    await provider.loadBalancer!.ensureLoadBalancer("kubernetes", old, []);
    const withAnnotation = await admin.get<Service>(SERVICES, "reborn", { namespace: ns });
    await admin.delete(SERVICES, "reborn", { namespace: ns });
    await create(loadBalancerService("reborn", ns));
    await provider.loadBalancer!.ensureLoadBalancerDeleted("kubernetes", withAnnotation);
    const current = await admin.get<Service>(SERVICES, "reborn", { namespace: ns });
    expect(current.metadata.uid).not.toBe(old.metadata.uid);
    expect(current.metadata.annotations?.[KUBE_VIP]).toBeUndefined();
    const refused = await provider.loadBalancer!.ensureLoadBalancer("kubernetes", old, []).then(
      () => "written",
      (error: unknown) => (error as Error).message,
    );
    expect(refused).toMatch(/^Service bm-provider-.*\/reborn was re-created \(UID .* is gone\)$/);
    expect(
      (await admin.get<Service>(SERVICES, "reborn", { namespace: ns })).metadata.annotations?.[KUBE_VIP],
    ).toBeUndefined();
  });
});
