/** Builders for the bare-metal provider's tests: Services, Nodes and settings in a line each. */
import type { ProviderInit } from "../../../src/cloud/provider.ts";
import type { KubeApi } from "../../../src/kube/api.ts";
import type { InformerView, Lister } from "../../../src/kube/informer.ts";
import { InformerCache } from "../../../src/kube/informer-cache.ts";
import { objectKey, type Condition, type KubeObject, type Node, type Service } from "../../../src/kube/objects.ts";
import { createLogger } from "../../../src/log/logger.ts";
import { Problems } from "../config-reader.ts";
import { serviceKeys } from "./annotations.ts";
import { parseLoadBalancers, type LoadBalancerSettings } from "./pools-config.ts";

/** The keys the tests use (bare metal's). */
export const KEYS = serviceKeys("baremetal.cloudprovider.io");

export const SHARE = "baremetal.cloudprovider.io/sharing-key";
export const KUBE_VIP = "kube-vip.io/loadbalancerIPs";

export interface ServiceOptions {
  readonly ns?: string;
  readonly families?: ("IPv4" | "IPv6")[];
  readonly policy?: "SingleStack" | "PreferDualStack" | "RequireDualStack";
  /** `spec.loadBalancerIP`. */
  readonly lbIP?: string;
  /** The requested-addresses annotation. */
  readonly ips?: string;
  readonly pool?: string;
  readonly share?: string;
  /** `TCP/80` or a bare port number (TCP). */
  readonly ports?: readonly (number | string)[];
  readonly local?: Record<string, string>;
  readonly status?: readonly string[];
  readonly announced?: string;
  readonly deleting?: boolean;
  readonly type?: "LoadBalancer" | "ClusterIP";
  readonly created?: string;
  readonly uid?: string;
  readonly labels?: Record<string, string>;
  /** The allow-address-move annotation set to "true". */
  readonly allowMove?: boolean;
  /** The allocated-from annotation (origin pools, comma-separated). */
  readonly from?: string;
  /** Any other annotations. */
  readonly annotations?: Record<string, string>;
}

function annotationsOf(o: ServiceOptions): Record<string, string> {
  const a: Record<string, string> = { ...o.annotations };
  if (o.ips !== undefined) a[KEYS.requestedIPs] = o.ips;
  if (o.pool !== undefined) a[KEYS.addressPool] = o.pool;
  if (o.allowMove) a[KEYS.allowAddressMove] = "true";
  if (o.from !== undefined) a[KEYS.allocatedFrom] = o.from;
  if (o.share !== undefined) a[SHARE] = o.share;
  if (o.announced !== undefined) a[KUBE_VIP] = o.announced;
  return a;
}

function portsOf(o: ServiceOptions): NonNullable<Service["spec"]>["ports"] {
  return (o.ports ?? [80]).map((p) => {
    const [protocol, port] = typeof p === "number" ? ["TCP", p] : [p.split("/")[0], Number(p.split("/")[1])];
    return { protocol: protocol as "TCP" | "UDP", port };
  });
}

function metadataOf(name: string, o: ServiceOptions): Service["metadata"] {
  const namespace = o.ns ?? "default";
  const deleting = o.deleting
    ? { deletionTimestamp: "2026-01-02T00:00:00Z", finalizers: ["service.kubernetes.io/load-balancer-cleanup"] }
    : {};
  const uid = o.uid ?? `uid-${namespace}-${name}`;
  const labels = o.labels ? { labels: o.labels } : {};
  return {
    name,
    namespace,
    uid,
    creationTimestamp: o.created ?? "2026-01-01T00:00:00Z",
    annotations: annotationsOf(o),
    ...labels,
    ...deleting,
  };
}

function familiesOf(o: ServiceOptions): Partial<NonNullable<Service["spec"]>> {
  if (!o.families) return {};
  return {
    ipFamilies: o.families,
    ipFamilyPolicy: o.policy ?? (o.families.length > 1 ? "RequireDualStack" : "SingleStack"),
  };
}

export function service(name: string, o: ServiceOptions = {}): Service {
  const spec: NonNullable<Service["spec"]> = {
    type: o.type ?? "LoadBalancer",
    ports: portsOf(o),
    selector: o.local ?? { app: name },
    ...familiesOf(o),
  };
  if (o.local) spec.externalTrafficPolicy = "Local";
  if (o.lbIP) spec.loadBalancerIP = o.lbIP;
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: metadataOf(name, o),
    spec,
    status: { loadBalancer: o.status ? { ingress: o.status.map((ip) => ({ ip })) } : {} },
  };
}

/** Settings from the `loadBalancers` section as YAML; throws on a config problem. */
export function settingsFrom(yaml: string): LoadBalancerSettings {
  const p = new Problems();
  const settings = parseLoadBalancers(p, Bun.YAML.parse(yaml), KEYS);
  if (!settings || p.list.length > 0) throw new Error(`bad settings: ${p.list.join("; ")}`);
  return settings;
}

export interface RecordedPatch {
  readonly name: string;
  readonly namespace?: string;
  /** `status` for a condition write; undefined for the annotation writes. */
  readonly subresource?: string;
  readonly body: {
    metadata: { annotations: Record<string, string | null>; uid?: string };
    status?: { conditions: Condition[] };
  };
}

/** A KubeApi that only takes patches: records them, and answers with `respond` (resolve by default). */
export function patchRecorder(respond: (patch: RecordedPatch) => Promise<void> = () => Promise.resolve()): {
  kube: KubeApi;
  patches: RecordedPatch[];
} {
  const patches: RecordedPatch[] = [];
  const unsupported = (): never => {
    throw new Error("only patch is expected");
  };
  const kube: KubeApi = {
    server: "https://test.invalid",
    get: unsupported,
    list: unsupported,
    listText: unsupported,
    watch: unsupported,
    watchLines: unsupported,
    create: unsupported,
    createVersion: unsupported,
    update: unsupported,
    delete: unsupported,
    patchVersion: unsupported,
    async patch<T>(
      _res: unknown,
      name: string,
      body: unknown,
      target: { namespace?: string; subresource?: string },
    ): Promise<T> {
      const patch = {
        name,
        namespace: target.namespace,
        subresource: target.subresource,
        body: body as RecordedPatch["body"],
      };
      patches.push(patch);
      await respond(patch);
      return {} as T;
    },
  };
  return { kube, patches };
}

/** A Lister over a mutable list of objects keyed `namespace/name`. */
export function listerOf<T extends KubeObject>(items: () => readonly T[]): Lister<T> {
  return {
    get: (key) => items().find((o) => objectKey(o) === key),
    list: () => [...items()],
    get size() {
      return items().length;
    },
  };
}

/**
 * `services`: a plain list; `serviceCache`: a real cache, whose changes reach the provider's Service
 * handlers as the manager's would. `namespaces`: what `ProviderInit.namespaces` answers (absent: none offered).
 */
export function providerInit(o: {
  services?: () => readonly Service[];
  serviceCache?: InformerCache<Service>;
  namespaces?: () => InformerView<KubeObject>;
  kube: KubeApi;
  synced?: Promise<boolean>;
  signal?: AbortSignal;
}): ProviderInit {
  const cache = o.serviceCache;
  return {
    signal: o.signal ?? new AbortController().signal,
    nodes: listerOf<Node>(() => []),
    services: cache ?? listerOf(o.services ?? (() => [])),
    waitForSync: () => o.synced ?? Promise.resolve(true),
    kube: o.kube,
    ...(cache ? { addServiceHandler: (handler) => cache.addHandler(handler) } : {}),
    ...(o.namespaces ? { namespaces: o.namespaces } : {}),
  };
}

/** A synced cache holding `objects`, as an informer's after its first listing. */
export function syncedCache<T extends KubeObject>(name: string, objects: readonly T[] = []): InformerCache<T> {
  const cache = new InformerCache<T>(name, createLogger({ verbosity: 0, format: "text", write: () => undefined }));
  for (const obj of objects) cache.upsert(obj);
  cache.markSynced();
  return cache;
}

export function namespace(name: string, labels: Record<string, string> = {}): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name, labels: { "kubernetes.io/metadata.name": name, ...labels } },
  };
}
