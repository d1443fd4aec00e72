/** LoadBalancer over the fake cloud: one LB per Service, named like upstream's default ("a" + UID). */
import type { LoadBalancer, ServiceWarning } from "../../src/cloud/provider.ts";
import type { LoadBalancerStatus, Node, Service } from "../../src/kube/objects.ts";
import type { FakeCloudApi } from "./api.ts";
import { FakeCloudError } from "./engine.ts";
import type { EnsuredFakeLoadBalancer, FakeLoadBalancer, LbRequest } from "./wire.ts";

/** Upstream `DefaultLoadBalancerName`: "a" + the UID without dashes, at most 32 characters. */
export function defaultLoadBalancerName(service: Service): string {
  return `a${(service.metadata.uid ?? "").replaceAll("-", "")}`.slice(0, 32);
}

/** Sorted node names per node list: the controller hands every Service the same list until a Node changes. */
type NameLists = WeakMap<readonly Node[], readonly string[]>;

function sortedNames(lists: NameLists, nodes: readonly Node[]): readonly string[] {
  let names = lists.get(nodes);
  if (!names) lists.set(nodes, (names = nodes.map((n) => n.metadata.name).sort()));
  return names;
}

function request(clusterName: string, service: Service, nodes: readonly Node[], lists: NameLists): LbRequest {
  const spec = service.spec ?? {};
  return {
    name: defaultLoadBalancerName(service),
    clusterName,
    service: `${service.metadata.namespace ?? ""}/${service.metadata.name}`,
    serviceUID: service.metadata.uid ?? "",
    ports: (spec.ports ?? []).map((p) => ({
      name: p.name,
      protocol: p.protocol ?? "TCP",
      port: p.port,
      nodePort: p.nodePort,
    })),
    ipFamilies: spec.ipFamilies ?? [],
    annotations: service.metadata.annotations ?? {},
    sourceRanges: spec.loadBalancerSourceRanges ?? [],
    nodes: sortedNames(lists, nodes),
  };
}

function statusOf(lb: Pick<FakeLoadBalancer, "ingress">): LoadBalancerStatus {
  return { ingress: lb.ingress.map((i) => (i.ip ? { ip: i.ip, ipMode: "VIP" as const } : { hostname: i.hostname })) };
}

/** Cloud-side validation errors become plain errors: their message reaches the Service's Warning event. */
function explain(error: unknown): never {
  if (error instanceof FakeCloudError && error.code === "InvalidParameter")
    throw new Error(error.message, { cause: error });
  throw error;
}

export function fakeLoadBalancer(api: FakeCloudApi): LoadBalancer {
  const lists: NameLists = new WeakMap();
  return {
    getLoadBalancerName: (_clusterName, service) => defaultLoadBalancerName(service),
    async getLoadBalancer(_clusterName, service, signal) {
      const { loadBalancer } = await api.call<{ loadBalancer: FakeLoadBalancer | null }>(
        "GetLoadBalancer",
        { name: defaultLoadBalancerName(service) },
        signal,
      );
      return loadBalancer ? { exists: true, status: statusOf(loadBalancer) } : { exists: false, status: {} };
    },
    async ensureLoadBalancer(clusterName, service, nodes, signal) {
      const answer = await api
        .call<{ loadBalancer: EnsuredFakeLoadBalancer; warnings: string[] }>(
          "EnsureLoadBalancer",
          request(clusterName, service, nodes, lists),
          signal,
        )
        .catch(explain);
      const warnings: ServiceWarning[] = answer.warnings.map((message) => ({
        reason: "UnsupportedAnnotation",
        message,
      }));
      return { status: statusOf(answer.loadBalancer), warnings };
    },
    async updateLoadBalancer(clusterName, service, nodes, signal) {
      await api.call("UpdateLoadBalancer", request(clusterName, service, nodes, lists), signal).catch(explain);
    },
    async ensureLoadBalancerDeleted(_clusterName, service, signal) {
      await api.call("EnsureLoadBalancerDeleted", { name: defaultLoadBalancerName(service) }, signal);
    },
  };
}
