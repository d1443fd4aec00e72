/**
 * Test doubles for the service controller's sync functions: the shared fake KubeApi, whose Services
 * storage is also the controller's Service cache, and a load balancer whose answers each test chooses.
 */
import type { EnsuredLoadBalancer, LoadBalancer } from "../../cloud/provider.ts";
import { SERVICES } from "../../kube/api.ts";
import type { Node, Service } from "../../kube/objects.ts";
import { createLogger } from "../../log/logger.ts";
import { createMetrics } from "../../metrics/metrics.ts";
import { realClock } from "../../util/clock.ts";
import { KeyedLock } from "../../util/concurrency.ts";
import { ServiceCache } from "./cache.ts";
import type { NodeSyncDeps } from "./node-sync.ts";
import { loadBalancerNodes } from "./predicates.ts";
import { mapLister, recordingRecorder, type RecordedEvent } from "../../../test/harness/doubles.ts";
import { fakeKubeApi, type RecordedWrite } from "../../../test/harness/fake-kube-api.ts";

export interface BalancerCall {
  readonly method: string;
  readonly service: string;
  readonly nodes?: string[];
}

/** A load balancer that records calls and answers with whatever `behave` says (default: success). */
export function stubBalancer(calls: BalancerCall[], behave: Partial<LoadBalancer> = {}): LoadBalancer {
  const record = (method: string, service: Service, nodes?: readonly Node[]): void =>
    void calls.push({ method, service: service.metadata.name, nodes: nodes?.map((n) => n.metadata.name).sort() });
  const ensured: EnsuredLoadBalancer = { status: { ingress: [{ ip: "203.0.113.7" }] } };
  return {
    getLoadBalancerName: () => "lb",
    async getLoadBalancer(cluster, service) {
      record("get", service);
      return behave.getLoadBalancer
        ? behave.getLoadBalancer(cluster, service)
        : { exists: true, status: ensured.status };
    },
    async ensureLoadBalancer(cluster, service, nodes) {
      record("ensure", service, nodes);
      return behave.ensureLoadBalancer ? behave.ensureLoadBalancer(cluster, service, nodes) : ensured;
    },
    async updateLoadBalancer(cluster, service, nodes) {
      record("update", service, nodes);
      if (behave.updateLoadBalancer) await behave.updateLoadBalancer(cluster, service, nodes);
    },
    async ensureLoadBalancerDeleted(cluster, service) {
      record("delete", service);
      if (behave.ensureLoadBalancerDeleted) await behave.ensureLoadBalancerDeleted(cluster, service);
    },
  };
}

export interface Harness {
  readonly deps: NodeSyncDeps;
  readonly services: Map<string, Service>;
  readonly nodes: Map<string, Node>;
  readonly writes: readonly RecordedWrite[];
  readonly events: RecordedEvent[];
  readonly calls: BalancerCall[];
  readonly resynced: string[];
}

export function harness(behave: Partial<LoadBalancer> = {}, servedClass = ""): Harness {
  const api = fakeKubeApi();
  const services = api.store<Service>(SERVICES);
  const nodes = new Map<string, Node>();
  const { writes } = api;
  const events: RecordedEvent[] = [];
  const calls: BalancerCall[] = [];
  const resynced: string[] = [];
  const deps: NodeSyncDeps = {
    api,
    services: mapLister(services),
    lbNodes: () => loadBalancerNodes([...nodes.values()]),
    balancer: stubBalancer(calls, behave),
    clusterName: "test",
    servedClass,
    recorder: recordingRecorder(events),
    cache: new ServiceCache(),
    logger: createLogger({ verbosity: 0, format: "text", write: () => undefined }),
    lock: new KeyedLock(),
    workers: 2,
    metrics: createMetrics(),
    clock: realClock,
    resync: (key) => void resynced.push(key),
  };
  return { deps, services, nodes, writes, events, calls, resynced };
}
