/**
 * Test doubles for the service controller's sync functions: an in-memory Services API that applies the
 * patches the controller sends (with resourceVersion preconditions) and records them, and a load
 * balancer whose answers each test chooses.
 */
import type { EnsuredLoadBalancer, LoadBalancer } from "../../cloud/provider.ts";
import type { KubeApi, Resource, Target } from "../../kube/api.ts";
import { objectKey, type Node, type Service } from "../../kube/objects.ts";
import { KubeApiError } from "../../kube/transport.ts";
import { createLogger } from "../../log/logger.ts";
import { createMetrics } from "../../metrics/metrics.ts";
import { realClock } from "../../util/clock.ts";
import { KeyedLock } from "../../util/concurrency.ts";
import { ServiceCache } from "./cache.ts";
import type { NodeSyncDeps } from "./node-sync.ts";
import { mapLister, recordingRecorder, type RecordedEvent } from "../../../test/harness/doubles.ts";

export interface RecordedWrite {
  readonly name: string;
  readonly subresource?: string;
  readonly patch: Record<string, unknown>;
}

interface PatchBody {
  metadata?: { finalizers?: string[]; "$deleteFromPrimitiveList/finalizers"?: string[] };
  status?: Service["status"];
}

/** Services keyed `namespace/name`; the map is the API server's storage and the lister's cache at once. */
export function fakeServiceApi(services: Map<string, Service>): { api: KubeApi; writes: RecordedWrite[] } {
  const writes: RecordedWrite[] = [];
  const find = (name: string, target?: Target): Service => {
    const found = services.get(`${target?.namespace}/${name}`);
    if (!found) throw new KubeApiError(404, "NotFound", `services "${name}" not found`);
    return found;
  };
  const api = {
    server: "fake",
    get: (_res: Resource, name: string, target?: Target) => Promise.resolve(structuredClone(find(name, target))),
    patch(_res: Resource, name: string, body: unknown, target: Target) {
      writes.push({ name, subresource: target.subresource, patch: body as Record<string, unknown> });
      return Promise.resolve(applyPatch(services, find(name, target), body as PatchBody));
    },
  };
  return { api: api as unknown as KubeApi, writes };
}

/** Strategic merge as the API server does it for these fields: finalizers element-wise, ingress whole. */
function applyPatch(services: Map<string, Service>, current: Service, patch: PatchBody): Service {
  const { metadata, status } = patch;
  const next = structuredClone(current);
  next.metadata.resourceVersion = String(Number(current.metadata.resourceVersion) + 1);
  if (metadata) next.metadata.finalizers = mergeFinalizers(current.metadata.finalizers ?? [], metadata);
  if (status) next.status = { loadBalancer: { ingress: status.loadBalancer?.ingress ?? undefined } };
  store(services, next);
  return structuredClone(next);
}

function mergeFinalizers(current: readonly string[], patch: NonNullable<PatchBody["metadata"]>): string[] {
  const removed = new Set(patch["$deleteFromPrimitiveList/finalizers"] ?? []);
  const added = (patch.finalizers ?? []).filter((f) => !current.includes(f));
  return [...current.filter((f) => !removed.has(f)), ...added];
}

/** A Service being deleted disappears with its last finalizer. */
function store(services: Map<string, Service>, service: Service): void {
  const gone = service.metadata.deletionTimestamp !== undefined && (service.metadata.finalizers ?? []).length === 0;
  if (gone) services.delete(objectKey(service));
  else services.set(objectKey(service), service);
}

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
      return behave.getLoadBalancer ? behave.getLoadBalancer(cluster, service) : { exists: true, status: ensured.status };
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
  readonly writes: RecordedWrite[];
  readonly events: RecordedEvent[];
  readonly calls: BalancerCall[];
  readonly resynced: string[];
}

export function harness(behave: Partial<LoadBalancer> = {}, servedClass = ""): Harness {
  const services = new Map<string, Service>();
  const nodes = new Map<string, Node>();
  const { api, writes } = fakeServiceApi(services);
  const events: RecordedEvent[] = [];
  const calls: BalancerCall[] = [];
  const resynced: string[] = [];
  const deps: NodeSyncDeps = {
    api,
    services: mapLister(services),
    nodes: mapLister(nodes),
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
