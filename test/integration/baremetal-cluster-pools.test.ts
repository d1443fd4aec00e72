/**
 * Bare metal with `loadBalancers.source: cluster`: the pools are AddressPool objects, read live by the
 * leading manager (a real process, as the restricted identity, against the real API server). Edits apply
 * without a restart; a shrunk pool never moves an address silently; each pool's status shows its counts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SERVICES, type KubeApi } from "../../src/kube/api.ts";
import type { Condition, KubeObject, Service } from "../../src/kube/objects.ts";
import { ADDRESS_POOLS } from "../../providers/shared/address-pools/crd.ts";
import { GROUP, VERSION } from "../../providers/shared/crd.ts";
import { startCcm, type CcmProcess, managerFlags } from "../harness/ccm.ts";
import { controlPlane } from "../harness/control-plane.ts";
import { loadBalancerService, uniqueName } from "../harness/fixtures.ts";
import { eventually } from "../harness/wait.ts";
import { createNamespace, eventsFor } from "./support.ts";

const POOL_ANNOTATION = "baremetal.cloudprovider.io/address-pool";
const CONDITION = "baremetal.cloudprovider.io/AddressesInPools";

interface AddressPool extends KubeObject {
  spec: Record<string, unknown>;
  status?: { used?: number; free?: string; conditions?: Condition[] };
}

const ingressIPs = (svc: Service): string[] => (svc.status?.loadBalancer?.ingress ?? []).map((i) => i.ip ?? "");

function pool(name: string, spec: Record<string, unknown>): AddressPool {
  return { apiVersion: `${GROUP}/${VERSION}`, kind: "AddressPool", metadata: { name }, spec };
}

describe("bare metal with AddressPool objects", () => {
  let admin: KubeApi;
  let kubeconfig: string;
  const running: CcmProcess[] = [];

  beforeAll(async () => {
    const cp = await controlPlane();
    admin = cp.admin;
    kubeconfig = cp.kubeconfigs.ccm;
  });
  afterAll(async () => {
    for (const ccm of running) await ccm.stop("SIGKILL").catch(() => undefined);
  });

  test("pools from the cluster: addresses, live edits, a shrunk pool keeps its address flagged, status counts", async () => {
    const ns = uniqueName("bm-crd");
    await createNamespace(admin, ns);
    const [first, second] = [uniqueName("first"), uniqueName("second")];
    await admin.create(ADDRESS_POOLS, pool(first, { addresses: ["172.30.40.0/30"], namespaces: [ns] }));
    const dir = mkdtempSync(join(tmpdir(), "baremetal-crd-"));
    writeFileSync(join(dir, "cloud.yaml"), "loadBalancers: { source: cluster }\n");
    const ccm = startCcm({
      args: [...managerFlags(kubeconfig, "baremetal", join(dir, "cloud.yaml")), "--configure-cloud-routes=false"],
    });
    running.push(ccm);
    await ccm.waitForLine(/address pools from AddressPool objects: .*first/, 60_000);

    await admin.create(SERVICES, loadBalancerService("web", ns), { namespace: ns });
    const web = await eventually(
      "web to get an address",
      async () => ingressIPs(await admin.get<Service>(SERVICES, "web", { namespace: ns }))[0],
      60_000,
    );
    expect(web).toBe("172.30.40.0");
    await eventually(
      "the pool's status to count it",
      async () => {
        const status = (await admin.get<AddressPool>(ADDRESS_POOLS, first)).status;
        return (
          status?.used === 1 &&
          status.free === "3" &&
          status.conditions?.some((c) => c.type === "Valid" && c.status === "True")
        );
      },
      30_000,
    );

    // A pool created while the manager runs serves the next Service that asks for it.
    await admin.create(ADDRESS_POOLS, pool(second, { addresses: ["172.30.41.8-172.30.41.9"], autoAssign: false }));
    await admin.create(SERVICES, loadBalancerService("api", ns, { annotations: { [POOL_ANNOTATION]: second } }), {
      namespace: ns,
    });
    const api = await eventually(
      "api to get an address of the new pool",
      async () => ingressIPs(await admin.get<Service>(SERVICES, "api", { namespace: ns }))[0],
      60_000,
    );
    expect(api).toBe("172.30.41.8");

    // An overlapping pool offers nothing and says why; the older pool stays in force.
    const clash = uniqueName("clash");
    await admin.create(ADDRESS_POOLS, pool(clash, { addresses: ["172.30.41.9"] }));
    await eventually(
      "the overlapping pool to be marked not valid",
      async () => {
        const status = (await admin.get<AddressPool>(ADDRESS_POOLS, clash)).status;
        return status?.conditions?.some(
          (c) => c.type === "Valid" && c.status === "False" && c.message.includes(second),
        );
      },
      30_000,
    );

    // The first pool shrinks under web's address: web keeps it, flagged, with a Warning event.
    const current = await admin.get<AddressPool>(ADDRESS_POOLS, first);
    await admin.update(ADDRESS_POOLS, { ...current, spec: { ...current.spec, addresses: ["172.30.40.2/31"] } });
    await admin.patch(
      SERVICES,
      "web",
      { metadata: { annotations: { "example.com/touched": "1" } } },
      { namespace: ns, type: "merge" },
    );
    await eventually(
      "web's condition to say it keeps an address outside the pools",
      async () => {
        const svc = await admin.get<Service>(SERVICES, "web", { namespace: ns });
        return svc.status?.conditions?.some(
          (c) => c.type === CONDITION && c.status === "False" && c.message.includes("172.30.40.0"),
        );
      },
      60_000,
    );
    // Events go out after the status write, from the event sink's own queue.
    const kept = await eventually(
      "the LoadBalancerAddressKept event",
      async () => (await eventsFor(admin, ns, "Service", "web")).find((e) => e.reason === "LoadBalancerAddressKept"),
      30_000,
    );
    expect(kept).toMatchObject({ type: "Warning" });
    expect(kept?.message).toContain("kept 172.30.40.0");
    expect(ingressIPs(await admin.get<Service>(SERVICES, "web", { namespace: ns }))).toEqual([web]);
    await ccm.stop("SIGTERM");
  }, 180_000);
});
