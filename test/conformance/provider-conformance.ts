/**
 * The one suite every provider passes (hono's shared router suite, applied to clouds). A provider's test
 * file calls `runProviderConformance` with a target that can make instances in its cloud; a case that
 * cannot apply is skipped with a written reason.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { InstanceNotFoundError } from "../../src/cloud/errors.ts";
import type { CloudProvider, InstanceMetadata, ProviderFactory } from "../../src/cloud/provider.ts";
import type { Node, Service } from "../../src/kube/objects.ts";
import { deepFreeze } from "../../src/util/freeze.ts";

/** The cloud side of a conformance run: makes and changes instances the provider will be asked about. */
export interface ConformanceCloud {
  /** Creates a running instance; resolves the Node a kubelet on it would register (no providerID yet). */
  createInstance(name: string): Promise<Node>;
  stopInstance(node: Node): Promise<void>;
  terminateInstance(node: Node): Promise<void>;
}

export interface ConformanceSession {
  readonly provider: CloudProvider;
  readonly cloud: ConformanceCloud;
  cleanup(): Promise<void>;
}

export type ConformanceCase =
  | "metadata"
  | "metadataByProviderID"
  | "stopped"
  | "terminated"
  | "unknown"
  | "batch"
  | "loadBalancer"
  | "loadBalancerDualStack"
  | "routes"
  | "readOnlyInputs";

export interface ConformanceTarget {
  readonly name: string;
  readonly clusterName?: string;
  setup(): Promise<ConformanceSession>;
  /** Cases that do not apply, each with the reason. */
  readonly skip?: Partial<Record<ConformanceCase, string>>;
  readonly timeoutMs?: number;
  /** The registered factory: what it declares of the provider (no routes) is held against the provider. */
  readonly factory?: Pick<ProviderFactory<never>, "withoutRoutes">;
}

let serial = 0;
const unique = (prefix: string): string => `${prefix}-${process.pid}-${++serial}`;

export function serviceFixture(name: string, extra: Partial<NonNullable<Service["spec"]>> = {}): Service {
  const uid = crypto.randomUUID();
  return deepFreeze({
    apiVersion: "v1",
    kind: "Service",
    metadata: { name, namespace: "conformance", uid, resourceVersion: "1", annotations: {} },
    spec: { type: "LoadBalancer", ports: [{ name: "http", protocol: "TCP", port: 80, nodePort: 30080 }], ...extra },
  });
}

export function runProviderConformance(target: ConformanceTarget): void {
  const clusterName = target.clusterName ?? "conformance";
  const timeout = target.timeoutMs ?? 60_000;
  let session: ConformanceSession;
  const caseTest = (id: ConformanceCase, title: string, body: () => Promise<void>): void => {
    const reason = target.skip?.[id];
    if (reason) test.skip(`${title} (skipped: ${reason})`, body);
    else test(title, body, timeout);
  };
  const instances = () => {
    const caps = session.provider.instances;
    if (!caps) throw new Error(`${target.name} offers no instances`);
    return caps;
  };
  const node = async (prefix: string): Promise<Node> => deepFreeze(await session.cloud.createInstance(unique(prefix)));
  /** The Node as the node controller leaves it: with the providerID its metadata gave. */
  const initialised = async (prefix: string): Promise<Node> => {
    const n = await node(prefix);
    const meta = (await instances().instanceMetadata(n)) as InstanceMetadata;
    return deepFreeze({ ...n, spec: { ...n.spec, providerID: meta.providerID } });
  };

  describe(`provider conformance: ${target.name}`, () => {
    beforeAll(async () => {
      session = await target.setup();
    }, timeout);
    afterAll(async () => session?.cleanup());

    if (target.factory?.withoutRoutes === true)
      test("a factory that declares no routes builds a provider without routes", () => {
        expect(session.provider.routes).toBeUndefined();
      });

    caseTest("metadata", "metadata of a running instance: providerID, and exists / not shut down", async () => {
      const n = await node("meta");
      const meta = await instances().instanceMetadata(n);
      expect(meta).toBeDefined();
      expect(meta?.providerID).toMatch(new RegExp(`^${session.provider.name}://.+`));
      expect(await instances().instanceExists(n)).toBe(true);
      expect(await instances().instanceShutdown(n)).toBe(false);
      const again = await instances().instanceMetadata(n);
      expect(again?.providerID).toBe(meta?.providerID ?? "");
    });

    caseTest("metadataByProviderID", "a Node that carries its providerID is found by it", async () => {
      const n = await node("by-id");
      const meta = (await instances().instanceMetadata(n)) as InstanceMetadata;
      const withId = deepFreeze({ ...n, spec: { ...n.spec, providerID: meta.providerID } });
      const byId = await instances().instanceMetadata(withId);
      expect(byId?.providerID).toBe(meta.providerID);
      expect(byId?.instanceType).toBe(meta.instanceType);
      expect(await instances().instanceExists(withId)).toBe(true);
    });

    caseTest("stopped", "a stopped instance exists and is shut down", async () => {
      const n = await node("stopped");
      await session.cloud.stopInstance(n);
      expect(await instances().instanceExists(n)).toBe(true);
      expect(await instances().instanceShutdown(n)).toBe(true);
    });

    caseTest("terminated", "a terminated instance does not exist; metadata throws InstanceNotFoundError", async () => {
      const n = await initialised("gone");
      await session.cloud.terminateInstance(n);
      expect(await instances().instanceExists(n)).toBe(false);
      await expect(instances().instanceMetadata(n)).rejects.toBeInstanceOf(InstanceNotFoundError);
    });

    caseTest(
      "unknown",
      "a Node without providerID no instance backs does not exist; metadata throws InstanceNotFoundError",
      async () => {
        const ghost: Node = deepFreeze({
          apiVersion: "v1",
          kind: "Node",
          metadata: { name: unique("ghost") },
          spec: {},
        });
        expect(await instances().instanceExists(ghost)).toBe(false);
        await expect(instances().instanceMetadata(ghost)).rejects.toBeInstanceOf(InstanceNotFoundError);
      },
    );

    caseTest("batch", "batched lookups answer each node in order, like the single-node calls", async () => {
      const batch = instances().batch;
      if (!batch) throw new Error("no batch capability");
      expect(batch.maxBatchSize).toBeGreaterThanOrEqual(1);
      const [a, b, c] = [await initialised("batch-a"), await initialised("batch-b"), await initialised("batch-c")];
      await session.cloud.stopInstance(b);
      await session.cloud.terminateInstance(c);
      const metas = await batch.instanceMetadataBatch([a, b, c]);
      expect(metas).toHaveLength(3);
      expect("value" in metas[0]! && metas[0].value?.providerID).toBe(
        (await instances().instanceMetadata(a))?.providerID ?? "",
      );
      expect("value" in metas[1]!).toBe(true);
      expect("error" in metas[2]! && metas[2].error).toBeInstanceOf(InstanceNotFoundError);
      const states = await batch.instanceStateBatch([a, b, c]);
      expect(states).toEqual([
        { value: { exists: true, shutdown: false } },
        { value: { exists: true, shutdown: true } },
        { value: { exists: false } },
      ]);
    });

    caseTest("loadBalancer", "load balancer life cycle: ensure, get, update, delete (idempotent)", async () => {
      const lb = session.provider.loadBalancer;
      if (!lb) throw new Error("no load balancer capability");
      const backends = [await node("lb-a"), await node("lb-b")];
      const svc = serviceFixture(unique("svc"));
      expect(lb.getLoadBalancerName(clusterName, svc)).toBe(lb.getLoadBalancerName(clusterName, svc));
      expect((await lb.getLoadBalancer(clusterName, svc)).exists).toBe(false);
      const first = await lb.ensureLoadBalancer(clusterName, svc, backends);
      expect(first.status.ingress?.length).toBeGreaterThan(0);
      const got = await lb.getLoadBalancer(clusterName, svc);
      expect(got.exists).toBe(true);
      const second = await lb.ensureLoadBalancer(clusterName, svc, backends);
      expect(second.status.ingress).toEqual(first.status.ingress);
      await lb.updateLoadBalancer(clusterName, svc, backends.slice(0, 1));
      await lb.ensureLoadBalancerDeleted(clusterName, svc);
      expect((await lb.getLoadBalancer(clusterName, svc)).exists).toBe(false);
      await lb.ensureLoadBalancerDeleted(clusterName, svc);
    });

    caseTest("loadBalancerDualStack", "a dual-stack Service gets one ingress address per family", async () => {
      const lb = session.provider.loadBalancer;
      if (!lb) throw new Error("no load balancer capability");
      const svc = serviceFixture(unique("svc-ds"), {
        ipFamilies: ["IPv4", "IPv6"],
        ipFamilyPolicy: "RequireDualStack",
      });
      const ensured = await lb.ensureLoadBalancer(clusterName, svc, [await node("lb-ds")]);
      const ips = (ensured.status.ingress ?? []).map((i) => i.ip ?? "");
      expect(ips.filter((ip) => ip.includes(":"))).toHaveLength(1);
      expect(ips.filter((ip) => ip.includes("."))).toHaveLength(1);
      await lb.ensureLoadBalancerDeleted(clusterName, svc);
    });

    caseTest("routes", "routes: create per CIDR (two families, one name hint), list, delete (idempotent)", async () => {
      const routes = session.provider.routes;
      if (!routes) throw new Error("no routes capability");
      const target = await node("route");
      const hint = crypto.randomUUID();
      const v4 = `10.${200 + (serial % 50)}.${serial % 250}.0/24`;
      const v6 = `fd00:${serial.toString(16)}::/64`;
      const created = [];
      for (const cidr of [v4, v6])
        created.push(
          await routes.createRoute(clusterName, hint, {
            name: "",
            targetNode: target.metadata.name,
            destinationCIDR: cidr,
            blackhole: false,
          }),
        );
      const mine = (await routes.listRoutes(clusterName)).filter((r) => r.targetNode === target.metadata.name);
      expect(mine.map((r) => r.destinationCIDR).sort()).toEqual([v4, v6].sort());
      // A route createRoute resolves with must be the one listRoutes reports (the controller deletes by it).
      for (const route of created) if (route) expect(mine.map((r) => r.name)).toContain(route.name);
      expect(new Set(mine.map((r) => r.name)).size).toBe(2);
      for (const r of mine) await routes.deleteRoute(clusterName, r);
      for (const r of mine) await routes.deleteRoute(clusterName, r);
      expect((await routes.listRoutes(clusterName)).filter((r) => r.targetNode === target.metadata.name)).toEqual([]);
    });

    caseTest("readOnlyInputs", "Node and Service arguments are never mutated (they are frozen here)", async () => {
      const n = await node("frozen");
      await instances().instanceMetadata(n);
      await instances().instanceExists(n);
      const lb = session.provider.loadBalancer;
      if (!lb) return;
      const svc = serviceFixture(unique("svc-frozen"));
      await lb.ensureLoadBalancer(clusterName, svc, [n]);
      await lb.ensureLoadBalancerDeleted(clusterName, svc);
    });
  });
}
