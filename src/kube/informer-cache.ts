/**
 * The cache behind an informer: objects by key, the handlers told of every change, and the sync state. An
 * `Informer` fills it from its list and watch; a controller thread's mirror fills it from the changes the
 * main thread forwards (kube/informer-mirror.ts). Controllers see only `InformerView`, so they cannot
 * tell the two apart. Handlers are called synchronously, in the order of the changes.
 */
import type { Logger } from "../log/logger.ts";
import { objectKey, type KubeObject } from "./objects.ts";
import { errorMessage } from "./worker.ts";

export interface EventHandler<T> {
  add?(obj: T): void;
  update?(oldObj: T, newObj: T): void;
  delete?(obj: T): void;
}

export interface Lister<T> {
  get(key: string): T | undefined;
  list(): T[];
  readonly size: number;
}

/** What controllers and providers see of an informer. */
export interface InformerView<T> extends Lister<T> {
  /** True once the first full listing is in the cache. */
  readonly synced: boolean;
  /** Registers a handler; objects already cached are replayed to it as adds (client-go semantics). */
  addHandler(handler: EventHandler<T>): () => void;
  /** Resolves true once synced, false if `signal` aborts first. */
  waitForSync(signal: AbortSignal): Promise<boolean>;
}

export class InformerCache<T extends KubeObject> implements InformerView<T> {
  /** The resource's plural, for log lines. */
  readonly #name: string;
  readonly #logger: Logger;
  readonly #store = new Map<string, T>();
  readonly #handlers = new Set<EventHandler<T>>();
  #synced = false;
  #syncWaiters: (() => void)[] = [];

  constructor(name: string, logger: Logger) {
    this.#name = name;
    this.#logger = logger;
  }

  get synced(): boolean {
    return this.#synced;
  }

  get size(): number {
    return this.#store.size;
  }

  get(key: string): T | undefined {
    return this.#store.get(key);
  }

  list(): T[] {
    return [...this.#store.values()];
  }

  addHandler(handler: EventHandler<T>): () => void {
    this.#handlers.add(handler);
    for (const obj of this.#store.values()) handler.add?.(obj);
    return () => this.#handlers.delete(handler);
  }

  async waitForSync(signal: AbortSignal): Promise<boolean> {
    if (this.#synced) return true;
    if (signal.aborted) return false;
    return new Promise((resolve) => {
      const onAbort = (): void => resolve(false);
      signal.addEventListener("abort", onAbort, { once: true });
      this.#syncWaiters.push(() => {
        signal.removeEventListener("abort", onAbort);
        resolve(true);
      });
    });
  }

  /** An added or changed object: handlers see an add, or an update from the copy cached before. */
  upsert(obj: T): void {
    const key = objectKey(obj);
    const old = this.#store.get(key);
    this.#store.set(key, obj);
    this.#emit((h) => (old ? h.update?.(old, obj) : h.add?.(obj)));
  }

  /**
   * A newer resourceVersion of a cached object whose content did not change (a heartbeat, once trimmed):
   * the cached copy carries it from now on, and handlers hear nothing. Unknown keys are ignored.
   */
  advance(key: string, resourceVersion: string): void {
    const old = this.#store.get(key);
    if (old) this.#store.set(key, { ...old, metadata: { ...old.metadata, resourceVersion } });
  }

  /** A deleted object: handlers see the last cached copy, or `obj` when none was cached. */
  remove(obj: T): void {
    const key = objectKey(obj);
    const old = this.#store.get(key);
    this.#store.delete(key);
    this.#emit((h) => h.delete?.(old ?? obj));
  }

  /**
   * Swaps in a full listing, telling handlers what changed since the last one: deletes first, then adds,
   * and updates only where the resourceVersion moved.
   */
  replace(fresh: ReadonlyMap<string, T>): void {
    for (const [key, old] of this.#store) {
      if (!fresh.has(key)) {
        this.#store.delete(key);
        this.#emit((h) => h.delete?.(old));
      }
    }
    for (const [key, obj] of fresh) {
      const old = this.#store.get(key);
      this.#store.set(key, obj);
      if (!old) this.#emit((h) => h.add?.(obj));
      else if (old.metadata.resourceVersion !== obj.metadata.resourceVersion) this.#emit((h) => h.update?.(old, obj));
    }
  }

  markSynced(): void {
    if (this.#synced) return;
    this.#synced = true;
    const waiters = this.#syncWaiters;
    this.#syncWaiters = [];
    for (const resolve of waiters) resolve();
  }

  #emit(call: (h: EventHandler<T>) => void): void {
    for (const handler of this.#handlers) {
      try {
        call(handler);
      } catch (error) {
        this.#logger.error(`${this.#name}: event handler failed: ${errorMessage(error)}`);
      }
    }
  }
}
