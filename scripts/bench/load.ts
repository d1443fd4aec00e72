/**
 * Load generation and observation through the admin client: objects created at high concurrency, and a
 * tracker that lists then watches a resource and records when each object first satisfies a predicate.
 */
import type { KubeApi, Resource } from "../../src/kube/api.ts";
import { objectKey, type KubeObject } from "../../src/kube/objects.ts";
import { isAlreadyExists } from "../../src/kube/transport.ts";
import { forEachLimited } from "../../src/util/concurrency.ts";

export async function createAll<T extends KubeObject>(
  api: KubeApi,
  resource: Resource,
  objects: readonly T[],
  concurrency = 48,
): Promise<void> {
  await forEachLimited(objects, concurrency, async (obj) => {
    await api.create(resource, obj, { namespace: obj.metadata.namespace }).catch((error: unknown) => {
      if (!isAlreadyExists(error)) throw error;
    });
  });
}

export interface Tracker {
  readonly count: number;
  /** [milliseconds since `start`, objects satisfying the predicate] at every change. */
  readonly timeline: readonly (readonly [number, number])[];
  /** Resolves once `count` reaches `target`; rejects after `timeoutMs`. */
  waitFor(target: number, timeoutMs: number): Promise<void>;
  /** Restarts the clock and the timeline; objects already counted stay counted. */
  restart(): void;
  stop(): void;
}

/** Which objects a tracker sees: one namespace, a label selector. */
export interface Scope {
  readonly namespace?: string;
  readonly labelSelector?: string;
}

export async function track<T extends KubeObject>(
  api: KubeApi,
  resource: Resource,
  done: (obj: T) => boolean,
  scope: Scope = {},
): Promise<Tracker> {
  const seen = new Set<string>();
  let start = Date.now();
  let timeline: [number, number][] = [];
  const waiters: { target: number; resolve: () => void }[] = [];
  const observe = (obj: T): void => {
    const key = objectKey(obj);
    if (seen.has(key) || !done(obj)) return;
    seen.add(key);
    timeline.push([Date.now() - start, seen.size]);
    for (const w of waiters.filter((x) => seen.size >= x.target)) w.resolve();
  };
  const list = await api.list<T>(resource, scope);
  for (const item of list.items) observe(item);
  const abort = new AbortController();
  void watchLoop({ api, resource, scope, observe }, list.metadata.resourceVersion, abort.signal);
  return {
    get count() {
      return seen.size;
    },
    get timeline() {
      return timeline;
    },
    waitFor(target, timeoutMs) {
      if (seen.size >= target) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`${resource.plural}: ${seen.size} of ${target} done after ${timeoutMs / 1000} s`)),
          timeoutMs,
        );
        waiters.push({ target, resolve: () => (clearTimeout(timer), resolve()) });
      });
    },
    restart() {
      start = Date.now();
      timeline = [];
    },
    stop: () => abort.abort(),
  };
}

interface WatchTarget<T> {
  readonly api: KubeApi;
  readonly resource: Resource;
  readonly scope: Scope;
  readonly observe: (obj: T) => void;
}

/** Watches from `resourceVersion`, re-watching when the server ends a watch, until `signal` aborts. */
async function watchLoop<T extends KubeObject>(
  target: WatchTarget<T>,
  from: string,
  signal: AbortSignal,
): Promise<void> {
  const position = { resourceVersion: from };
  while (!signal.aborted) {
    try {
      await watchOnce(target, position, signal);
    } catch (error) {
      if (signal.aborted) return;
      console.error(`bench: ${target.resource.plural} watch ended (${(error as Error).message}); watching again`);
      await Bun.sleep(200);
    }
  }
}

async function watchOnce<T extends KubeObject>(
  target: WatchTarget<T>,
  position: { resourceVersion: string },
  signal: AbortSignal,
): Promise<void> {
  const { api, resource, scope } = target;
  const events = api.watch<T>(resource, {
    ...scope,
    resourceVersion: position.resourceVersion,
    timeoutSeconds: 600,
    signal,
  });
  for await (const event of events) {
    position.resourceVersion = event.object.metadata.resourceVersion ?? position.resourceVersion;
    if (event.type === "ADDED" || event.type === "MODIFIED") target.observe(event.object);
  }
}
