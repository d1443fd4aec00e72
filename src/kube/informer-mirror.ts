/**
 * Controller threads share the main thread's informers instead of listing and watching for themselves:
 * the main thread forwards every change its caches make (`forwardInformers`), batched per turn of its
 * event loop, and each thread applies them, in the same order, to a mirror (`createMirrorInformers`) that
 * controllers use exactly as they would the informers themselves. So the API server sees one list and one
 * watch per resource for the whole process, and each response is parsed once.
 *
 * Every thread gets every object. Services: the controllers read only the keys their shard owns, but a
 * provider reads them all (the address pools rebuild their allocation table from every Service's
 * ingress, and free what no Service shows any more), so a thread sees every change of every Service.
 * Nodes: the service node pass reads every Node's labels, taints and providerID, and the provider gets
 * the Nodes themselves, but no controller of a thread reads the status of a Node outside its shard (the
 * node and lifecycle controllers keep to their shard; the route controller and a provider that keeps
 * whole-cluster state run on a thread that takes every key). So a change of a Node's status alone goes
 * only to the thread that owns the Node and to a thread that takes every key (`encodeBatches`): in a
 * burst, each Node's address patch reaches one thread of four instead of all four, and a heartbeat's newer
 * resourceVersion too. Elsewhere the copy keeps its older status and resourceVersion, which nothing there
 * reads or writes with.
 */
import type { Logger } from "../log/logger.ts";
import { sameJson } from "../util/json.ts";
import { InformerCache, type InformerView } from "./informer-cache.ts";
import { describeCaches, waitForAll, type CachedResource, type SharedInformers } from "./informers.ts";
import { objectKey, type KubeObject, type Node, type Service } from "./objects.ts";

/** One change to a cache, as the main thread's informer made it. */
export type MirrorOp =
  | readonly [resource: CachedResource, change: "set" | "delete", obj: KubeObject]
  | readonly [resource: CachedResource, change: "synced"]
  /** Objects whose content did not change, at newer resourceVersions (`[key, resourceVersion]` pairs). */
  | readonly [resource: CachedResource, change: "advance", versions: readonly (readonly [string, string])[]];

/**
 * An op as the main thread forwards it: `owner`, for a change of a Node's status alone, the key of the
 * Node (only its shard's thread needs it); `byKey`, for newer Node resourceVersions, each key likewise.
 */
export interface Forwarded {
  readonly op: MirrorOp;
  readonly owner?: string;
  readonly byKey?: boolean;
}

/** Whether a thread takes this key's changes of status (its shard's keys, or every key). */
export type Wants = (key: string) => boolean;

/** The ops of `batch` a thread receives. */
export function opsFor(batch: readonly Forwarded[], wants: Wants): MirrorOp[] {
  const ops: MirrorOp[] = [];
  for (const { op, owner, byKey } of batch) {
    if (owner !== undefined) {
      if (wants(owner)) ops.push(op);
    } else if (byKey && op[1] === "advance") {
      const versions = op[2].filter(([key]) => wants(key));
      if (versions.length > 0) ops.push([op[0], "advance", versions]);
    } else ops.push(op);
  }
  return ops;
}

/**
 * `batch` for each thread, as the JSON of its `opsFor` ("" where it gets nothing): an op every thread
 * gets is encoded once for all of them (3,000 Nodes to 2 threads: 17–18 ms against 140–160 ms posting
 * each change as an object).
 */
export function encodeBatches(batch: readonly Forwarded[], threads: readonly Wants[]): string[] {
  const shared = batch.map((f) => (f.owner === undefined && !f.byKey ? JSON.stringify(f.op) : undefined));
  return threads.map((wants) => {
    const parts: string[] = [];
    batch.forEach((f, i) => {
      const encoded = shared[i];
      if (encoded !== undefined) parts.push(encoded);
      else for (const op of opsFor([f], wants)) parts.push(JSON.stringify(op));
    });
    return parts.length > 0 ? `[${parts.join(",")}]` : "";
  });
}

export interface MirrorInformers extends SharedInformers {
  /** Applies a batch of changes from the main thread, in order; handlers are called as each applies. */
  apply(ops: readonly MirrorOp[]): void;
}

export interface MirrorDeps {
  readonly logger: Logger;
  /** Asks the main thread to run these informers (it starts each once, for every thread). */
  watch(resources: readonly CachedResource[]): void;
}

/**
 * The thread's side. Changes are applied whether or not the thread asked for the resource yet (another
 * thread may have), so a cache is complete whenever a controller first asks for it.
 */
export function createMirrorInformers(deps: MirrorDeps): MirrorInformers {
  const logger = deps.logger.withTag("informers");
  const caches = {
    nodes: new InformerCache<Node>("nodes", logger),
    services: new InformerCache<Service>("services", logger),
  };
  const requested = new Set<CachedResource>();
  let running = false;
  const request = <R extends CachedResource>(resource: R): (typeof caches)[R] => {
    if (!requested.has(resource) && running) deps.watch([resource]);
    requested.add(resource);
    return caches[resource];
  };
  const inUse = (): InformerView<unknown>[] => [...requested].map((r) => caches[r]);
  return {
    nodes: () => request("nodes"),
    services: () => request("services"),
    async run(signal) {
      running = true;
      if (requested.size > 0) deps.watch([...requested]);
      if (signal.aborted) return;
      await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
    },
    waitForSync: (signal) => waitForAll(inUse(), signal),
    get synced() {
      return inUse().every((c) => c.synced);
    },
    describe: () =>
      describeCaches(
        requested.has("nodes") ? caches.nodes : undefined,
        requested.has("services") ? caches.services : undefined,
      ),
    apply(ops) {
      for (const op of ops) {
        const cache: InformerCache<KubeObject> = caches[op[0]];
        if (op[1] === "synced") cache.markSynced();
        else if (op[1] === "advance") for (const [key, version] of op[2]) cache.advance(key, version);
        else if (op[1] === "set") cache.upsert(op[2]);
        else cache.remove(op[2]);
      }
    },
  };
}

export interface ForwarderDeps {
  /** The main thread's informers, running. */
  readonly informers: SharedInformers;
  /** Delivers one batch to the threads (`encodeBatches`: each thread what it wants of it). */
  send(batch: readonly Forwarded[]): void;
  /** When a batch goes out: by default once per turn of the event loop, after the changes of that turn. */
  readonly schedule?: (flush: () => void) => void;
  /** When the pending newer resourceVersions go out: by default `ADVANCE_INTERVAL_MS` after the first. */
  readonly scheduleAdvance?: (flush: () => void) => void;
}

/**
 * How long a change of nothing but the resourceVersion (a Node heartbeat) may wait to reach the threads.
 * Each posted batch wakes every thread: at one batch per heartbeat, 4 threads doubled the CPU a
 * heartbeat costs. A thread that writes with a resourceVersion this old gets a Conflict, reads the
 * object again and retries, as after any concurrent write.
 */
export const ADVANCE_INTERVAL_MS = 1000;

/** What differs between two cached copies: the resourceVersion alone, the status too, or more. */
export function changeOf<T extends KubeObject>(a: T, b: T): "version" | "status" | "object" {
  const { resourceVersion: _a, ...metaA } = a.metadata;
  const { resourceVersion: _b, ...metaB } = b.metadata;
  const { status: statusA, ...restA } = a as KubeObject & { status?: unknown };
  const { status: statusB, ...restB } = b as KubeObject & { status?: unknown };
  if (!sameJson({ ...restA, metadata: metaA }, { ...restB, metadata: metaB })) return "object";
  return sameJson(statusA, statusB) ? "version" : "status";
}

export interface InformerForwarder {
  /** Starts forwarding these resources (once each; the informer starts with the first request). */
  watch(resources: readonly CachedResource[], signal: AbortSignal): void;
  /** Sends nothing more; what is not flushed yet is dropped. */
  close(): void;
}

/** The main thread's side. */
export function forwardInformers(deps: ForwarderDeps): InformerForwarder {
  const schedule = deps.schedule ?? ((flush: () => void) => void setImmediate(flush));
  const scheduleAdvance =
    deps.scheduleAdvance ?? ((flush: () => void) => void setTimeout(flush, ADVANCE_INTERVAL_MS).unref());
  const removers: (() => void)[] = [];
  const forwarded = new Set<CachedResource>();
  let batch: Forwarded[] = [];
  /** Newer resourceVersions not sent yet, by resource and key; a change of the object sends it instead. */
  const advanced = { nodes: new Map<string, string>(), services: new Map<string, string>() };
  let advancing = false;
  let closed = false;
  const flush = (): void => {
    const ops = batch;
    batch = [];
    if (!closed && ops.length > 0) deps.send(ops);
  };
  const push = (forwarded: Forwarded): void => {
    if (closed) return;
    if (batch.length === 0) schedule(flush);
    batch.push(forwarded);
  };
  const flushAdvanced = (): void => {
    advancing = false;
    for (const resource of ["nodes", "services"] as const) {
      const versions = advanced[resource];
      if (versions.size > 0) push({ op: [resource, "advance", [...versions]], byKey: resource === "nodes" });
      versions.clear();
    }
  };
  const advance = (resource: CachedResource, obj: KubeObject): void => {
    if (closed) return;
    advanced[resource].set(objectKey(obj), obj.metadata.resourceVersion ?? "");
    if (!advancing) scheduleAdvance(flushAdvanced);
    advancing = true;
  };
  const change = (resource: CachedResource, op: "set" | "delete", obj: KubeObject, statusOnly = false): void => {
    const key = objectKey(obj);
    advanced[resource].delete(key);
    push(statusOnly && resource === "nodes" ? { op: [resource, op, obj], owner: key } : { op: [resource, op, obj] });
  };
  const update = (resource: CachedResource, old: KubeObject, obj: KubeObject): void => {
    const changed = changeOf(old, obj);
    if (changed === "version") advance(resource, obj);
    else change(resource, "set", obj, changed === "status");
  };
  const forward = (resource: CachedResource, signal: AbortSignal): void => {
    const informer: InformerView<KubeObject> =
      resource === "nodes" ? deps.informers.nodes() : deps.informers.services();
    removers.push(
      informer.addHandler({
        add: (obj) => change(resource, "set", obj),
        update: (old, obj) => update(resource, old, obj),
        delete: (obj) => change(resource, "delete", obj),
      }),
    );
    void informer.waitForSync(signal).then((synced) => synced && push({ op: [resource, "synced"] }));
  };
  return {
    watch(resources, signal) {
      for (const resource of resources) {
        if (forwarded.has(resource)) continue;
        forwarded.add(resource);
        forward(resource, signal);
      }
    },
    close() {
      closed = true;
      batch = [];
      advanced.nodes.clear();
      advanced.services.clear();
      for (const remove of removers.splice(0)) remove();
    },
  };
}
