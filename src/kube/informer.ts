/**
 * A shared informer: list (paged) then watch from the list's resourceVersion with bookmarks; re-watch
 * when the server ends a watch; relist on 410 Gone; reconnect with jittered exponential backoff on
 * errors. Objects pass through `transform` before they are cached, so the cache holds only the fields the
 * controllers read. Handlers are called synchronously and should only enqueue keys (informer-cache.ts).
 */
import type { Logger } from "../log/logger.ts";
import { backoff, jitter, realClock, type Clock } from "../util/clock.ts";
import type { KubeApi, ListOptions, ObjectList, Resource, WatchEvent } from "./api.ts";
import { InformerCache, type EventHandler, type InformerView } from "./informer-cache.ts";
import type { Digest, Fingerprints } from "./heartbeats.ts";
import { WatchPace } from "./watch-pace.ts";
import { objectKey, type KubeObject } from "./objects.ts";
import { isGone } from "./transport.ts";
import { errorMessage } from "./worker.ts";

export type { EventHandler, InformerView, Lister } from "./informer-cache.ts";

export interface InformerOptions<T extends KubeObject> {
  readonly api: KubeApi;
  readonly resource: Resource;
  readonly logger: Logger;
  readonly transform?: (obj: T) => T;
  /**
   * Fingerprints watch events and list items from their bytes (heartbeats.ts): an event whose digest is
   * that of the event or item last applied for its object is that object at a newer resourceVersion, and
   * is not decoded. Only for a `transform` that drops what the digest leaves out, and cluster-scoped
   * objects (a digest is kept by name).
   */
  readonly fingerprint?: Fingerprints;
  readonly pageSize?: number;
  readonly clock?: Clock;
  /** `WATCH_IDLE_LIMIT_MS` unless given (tests). */
  readonly watchIdleLimitMs?: number;
}

interface WatchStatus {
  code?: number;
  reason?: string;
  message?: string;
}

class WatchExpiredError extends Error {}

/** An ERROR event: 410 Gone / Expired means "relist"; anything else is retried with backoff. */
function watchError(status: WatchStatus): Error {
  const expired = status.code === 410 || status.reason === "Expired" || status.reason === "Gone";
  return expired
    ? new WatchExpiredError(status.message)
    : new Error(`watch error ${status.code ?? ""} ${status.reason ?? ""}: ${status.message ?? ""}`);
}

const MIN_WATCH_TIMEOUT_S = 300;
const BACKOFF_INITIAL_MS = 800;
const BACKOFF_MAX_MS = 30_000;
/** As client-go's reflector backoff manager: a failure after this long without one starts from the first delay. */
const BACKOFF_RESET_MS = 120_000;

/**
 * A watch that reads nothing this long is given up and opened again. The API server sends a bookmark
 * about once a minute on a watch that asks for them, so a live watch is never this quiet; one whose
 * server vanished without a FIN or RST (a host gone, a load balancer's flow dropped) would otherwise
 * wait forever, its cache frozen. client-go's HTTP/2 pings find such a connection within 45 s.
 */
export const WATCH_IDLE_LIMIT_MS = 180_000;
/** Past the `timeoutSeconds` it asked for, the server should have ended the watch: it is given up too. */
const WATCH_OVERRUN_MS = 60_000;
/** Lines are noticed at a check, up to one check late; checked every 7.5 s, a stall is still found within 195 s. */
const WATCHDOG_EVERY_MS = 7_500;

class WatchStalledError extends Error {}

export class Informer<T extends KubeObject> implements InformerView<T> {
  readonly resource: Resource;
  readonly #o: InformerOptions<T>;
  readonly #cache: InformerCache<T>;
  readonly #clock: Clock;
  #resourceVersion: string | undefined;
  /**
   * The digest of the event or list item each cached copy was made from, where it had one: held by the
   * copy itself, so a copy replaced any other way has none.
   */
  readonly #fingerprints = new WeakMap<T, Digest>();

  constructor(options: InformerOptions<T>) {
    this.#o = options;
    this.resource = options.resource;
    this.#cache = new InformerCache<T>(options.resource.plural, options.logger);
    this.#clock = options.clock ?? realClock;
  }

  get synced(): boolean {
    return this.#cache.synced;
  }

  get size(): number {
    return this.#cache.size;
  }

  get(key: string): T | undefined {
    return this.#cache.get(key);
  }

  list(): T[] {
    return this.#cache.list();
  }

  addHandler(handler: EventHandler<T>): () => void {
    return this.#cache.addHandler(handler);
  }

  waitForSync(signal: AbortSignal): Promise<boolean> {
    return this.#cache.waitForSync(signal);
  }

  async run(signal: AbortSignal): Promise<void> {
    let failures = 0;
    let failedAt = Number.NEGATIVE_INFINITY;
    while (!signal.aborted) {
      try {
        if (this.#resourceVersion === undefined) await this.#relist(signal);
        await this.#watch(signal);
        failures = 0;
      } catch (error) {
        if (signal.aborted) return;
        if (error instanceof WatchExpiredError || isGone(error)) {
          this.#o.logger.debug(`${this.resource.plural}: watch expired, relisting`);
          this.#resourceVersion = undefined;
          continue;
        }
        // A watch that ran for hours and was then cut is a first failure, not the next of a series.
        if (this.#clock.now() - failedAt >= BACKOFF_RESET_MS) failures = 0;
        failedAt = this.#clock.now();
        const delay = jitter(backoff(failures++, BACKOFF_INITIAL_MS, BACKOFF_MAX_MS), 1);
        this.#o.logger.warn(
          `${this.resource.plural}: list/watch failed, retrying in ${(delay / 1000).toFixed(1)} s: ${errorMessage(error)}`,
        );
        await this.#clock.sleep(delay, signal).catch(() => undefined);
      }
    }
  }

  async #relist(signal: AbortSignal): Promise<void> {
    const fresh = new Map<string, T>();
    let page: string | undefined;
    let resourceVersion = "";
    do {
      const { list, digests } = await this.#page({ limit: this.#o.pageSize ?? 500, continue: page, signal });
      for (const item of list.items) {
        const obj = this.#prepare(item);
        const key = objectKey(obj);
        fresh.set(key, obj);
        // The cache keeps this very copy (replace), so the copy holds its item's digest from here.
        const digest = digests?.get(key);
        if (digest !== undefined) this.#fingerprints.set(obj, digest);
      }
      page = list.metadata.continue || undefined;
      resourceVersion = list.metadata.resourceVersion;
    } while (page);
    this.#cache.replace(fresh);
    this.#resourceVersion = resourceVersion;
    this.#cache.markSynced();
  }

  /** One page of the list, and with fingerprints its items' digests by name. */
  async #page(options: ListOptions): Promise<{ list: ObjectList<T>; digests?: Map<string, Digest> }> {
    const { api, fingerprint } = this.#o;
    if (!fingerprint) return { list: await api.list<T>(this.resource, options) };
    const answer = await api.listText(this.resource, options);
    return { list: JSON.parse(answer) as ObjectList<T>, digests: fingerprint.items(Buffer.from(answer)) };
  }

  async #watch(signal: AbortSignal): Promise<void> {
    const timeoutSeconds = Math.floor(MIN_WATCH_TIMEOUT_S * (1 + Math.random()));
    // Only heartbeats are read at a pace: without fingerprints every event reads on at once.
    const pace = this.#o.fingerprint ? new WatchPace(() => this.#clock.now()) : undefined;
    const watchdog = this.#watchdog(timeoutSeconds);
    const lines = this.#o.api.watchLines(this.resource, {
      resourceVersion: this.#resourceVersion ?? "",
      timeoutSeconds,
      signal: AbortSignal.any([signal, watchdog.signal]),
      pace: pace && (() => pace.next()),
    });
    try {
      for await (const line of lines) {
        watchdog.heard();
        const heartbeat = this.#applyLine(line);
        pace?.heard(line.length, heartbeat);
      }
    } finally {
      watchdog.stop();
    }
  }

  /** Aborts a watch that has read nothing for `WATCH_IDLE_LIMIT_MS`, or runs well past its timeout. */
  #watchdog(timeoutSeconds: number): { signal: AbortSignal; heard(): void; stop(): void } {
    const stalled = new AbortController();
    const started = this.#clock.now();
    const idleLimitMs = this.#o.watchIdleLimitMs ?? WATCH_IDLE_LIMIT_MS;
    // Lines are counted, not timed: a heartbeat costs no clock read. The check notes when the count moved.
    let heard = 0;
    let counted = 0;
    let heardAt = started;
    const timer = setInterval(
      () => {
        const now = this.#clock.now();
        if (heard !== counted) {
          counted = heard;
          heardAt = now;
        }
        if (now - heardAt >= idleLimitMs)
          stalled.abort(new WatchStalledError(`no watch event for ${Math.round((now - heardAt) / 1000)} s`));
        else if (now - started >= timeoutSeconds * 1000 + WATCH_OVERRUN_MS)
          stalled.abort(new WatchStalledError(`the watch ran past its ${timeoutSeconds} s timeout`));
      },
      Math.min(WATCHDOG_EVERY_MS, idleLimitMs / 8),
    );
    timer.unref();
    return {
      signal: stalled.signal,
      heard: () => void heard++,
      stop: () => clearInterval(timer),
    };
  }

  /** Applies one watch event; whether it was a heartbeat (the cached object at a new version). */
  #applyLine(line: Buffer): boolean {
    const print = this.#o.fingerprint?.event(line);
    const old = print?.type === "MODIFIED" ? this.#cache.get(print.key) : undefined;
    if (print && old && this.#fingerprints.get(old) === print.digest) {
      const obj = { ...old, metadata: { ...old.metadata, resourceVersion: print.resourceVersion } };
      this.#fingerprints.set(obj, print.digest);
      this.#resourceVersion = print.resourceVersion;
      this.#cache.upsert(obj);
      return true;
    }
    const event = JSON.parse(line.toString("utf8")) as WatchEvent<T>;
    this.#apply(event);
    const cached = print && this.#cache.get(print.key);
    if (print && cached) this.#fingerprints.set(cached, print.digest);
    return false;
  }

  #apply(event: WatchEvent<T>): void {
    if (event.type === "ERROR") throw watchError(event.object as unknown as WatchStatus);
    this.#resourceVersion = event.object.metadata.resourceVersion ?? this.#resourceVersion;
    if (event.type === "BOOKMARK") return;
    const obj = this.#prepare(event.object);
    if (event.type === "DELETED") this.#cache.remove(obj);
    else this.#cache.upsert(obj);
  }

  #prepare(obj: T): T {
    return this.#o.transform ? this.#o.transform(obj) : obj;
  }
}
