/**
 * Controller threads share the main thread's informers instead of listing and watching for themselves:
 * the main thread forwards every change its caches make (`forwardInformers`), batched per turn of its
 * event loop, and each thread applies them, in the same order, to a mirror (`createMirrorInformers`) that
 * controllers use exactly as they would the informers themselves. So the API server sees one list and one
 * watch per resource for the whole process, and each response is parsed once.
 *
 * Every thread gets every object. Nodes: every controller reads them whole (the service node pass, the
 * route reconcile, each shard's own Nodes). Services: the controllers read only the keys their shard owns,
 * but a provider reads them all (the address pools rebuild their allocation table from every Service's
 * ingress, and free what no Service shows any more), so a thread sees every Service, as before.
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
  /** Delivers one batch to every thread. */
  send(ops: readonly MirrorOp[]): void;
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

/** Whether two cached copies differ in nothing but their resourceVersion. */
export function sameButVersion<T extends KubeObject>(a: T, b: T): boolean {
  const { resourceVersion: _a, ...metaA } = a.metadata;
  const { resourceVersion: _b, ...metaB } = b.metadata;
  return sameJson({ ...a, metadata: metaA }, { ...b, metadata: metaB });
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
  let batch: MirrorOp[] = [];
  /** Newer resourceVersions not sent yet, by resource and key; a change of the object sends it instead. */
  const advanced = { nodes: new Map<string, string>(), services: new Map<string, string>() };
  let advancing = false;
  let closed = false;
  const flush = (): void => {
    const ops = batch;
    batch = [];
    if (!closed && ops.length > 0) deps.send(ops);
  };
  const push = (op: MirrorOp): void => {
    if (closed) return;
    if (batch.length === 0) schedule(flush);
    batch.push(op);
  };
  const flushAdvanced = (): void => {
    advancing = false;
    for (const resource of ["nodes", "services"] as const) {
      const versions = advanced[resource];
      if (versions.size > 0) push([resource, "advance", [...versions]]);
      versions.clear();
    }
  };
  const advance = (resource: CachedResource, obj: KubeObject): void => {
    if (closed) return;
    advanced[resource].set(objectKey(obj), obj.metadata.resourceVersion ?? "");
    if (!advancing) scheduleAdvance(flushAdvanced);
    advancing = true;
  };
  const change = (resource: CachedResource, op: "set" | "delete", obj: KubeObject): void => {
    advanced[resource].delete(objectKey(obj));
    push([resource, op, obj]);
  };
  const forward = (resource: CachedResource, signal: AbortSignal): void => {
    const informer: InformerView<KubeObject> =
      resource === "nodes" ? deps.informers.nodes() : deps.informers.services();
    removers.push(
      informer.addHandler({
        add: (obj) => change(resource, "set", obj),
        update: (old, obj) => (sameButVersion(old, obj) ? advance(resource, obj) : change(resource, "set", obj)),
        delete: (obj) => change(resource, "delete", obj),
      }),
    );
    void informer.waitForSync(signal).then((synced) => synced && push([resource, "synced"]));
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
