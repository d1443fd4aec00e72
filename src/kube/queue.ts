/**
 * A work queue with client-go semantics: keys, not objects; a key waiting in the queue is not added twice;
 * a key being processed is never handed to a second worker (if it is added meanwhile it runs again after
 * `done`); delayed and rate-limited re-adds; shut down with or without draining in-flight work.
 */
import type { Clock } from "../util/clock.ts";
import { realClock } from "../util/clock.ts";
import { Fifo } from "../util/fifo.ts";
import type { RateLimiter } from "./rate-limiters.ts";
import { ownsKey, WHOLE, type Shard } from "./shard.ts";

export interface QueueMetrics {
  depth(name: string, value: number): void;
  added(name: string): void;
  retried(name: string): void;
  waited(name: string, seconds: number): void;
  worked(name: string, seconds: number): void;
  /** Registers the queue's in-flight measurement (read at each scrape); returns its removal. */
  watchInFlight(name: string, measure: () => readonly [unfinishedSeconds: number, longestSeconds: number]): () => void;
}

export interface QueueOptions {
  readonly name: string;
  readonly rateLimiter: RateLimiter;
  readonly clock?: Clock;
  readonly metrics?: QueueMetrics;
  /**
   * With `--controller-threads`, the keys this thread's queue takes; every other key is silently dropped
   * (another thread's queue takes it). Default: every key.
   */
  readonly shard?: Shard;
}

export class WorkQueue {
  readonly name: string;
  readonly #limiter: RateLimiter;
  readonly #clock: Clock;
  readonly #metrics: QueueMetrics | undefined;
  readonly #unwatch: () => void;
  readonly #shard: Shard;
  readonly #queue = new Fifo<string>();
  readonly #dirty = new Set<string>();
  readonly #processing = new Map<string, number>();
  readonly #addedAt = new Map<string, number>();
  readonly #delayed = new Map<string, { at: number; timer: ReturnType<typeof setTimeout> }>();
  #waiters: ((key: string | undefined) => void)[] = [];
  #drained: (() => void) | undefined;
  #shuttingDown = false;

  constructor(options: QueueOptions) {
    this.name = options.name;
    this.#limiter = options.rateLimiter;
    this.#clock = options.clock ?? realClock;
    this.#metrics = options.metrics;
    this.#shard = options.shard ?? WHOLE;
    this.#unwatch = this.#metrics?.watchInFlight(this.name, () => this.#inFlight()) ?? (() => undefined);
  }

  /** Whether this queue takes `key` (always, unless the controller's keys are sharded over threads). */
  owns(key: string): boolean {
    return ownsKey(this.#shard, key);
  }

  get length(): number {
    return this.#queue.length;
  }

  get shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  add(key: string): void {
    if (this.#shuttingDown || this.#dirty.has(key) || !this.owns(key)) return;
    this.#metrics?.added(this.name);
    this.#dirty.add(key);
    this.#addedAt.set(key, this.#clock.now());
    if (this.#processing.has(key)) return;
    const waiter = this.#waiters.shift();
    if (waiter) this.#hand(key, waiter);
    else {
      this.#queue.push(key);
      this.#metrics?.depth(this.name, this.#queue.length);
    }
  }

  /** Adds `key` after `ms`; an earlier pending add of the same key wins. */
  addAfter(key: string, ms: number): void {
    if (this.#shuttingDown || !this.owns(key)) return;
    if (ms <= 0) {
      this.add(key);
      return;
    }
    const at = this.#clock.now() + ms;
    const pending = this.#delayed.get(key);
    if (pending && pending.at <= at) return;
    if (pending) clearTimeout(pending.timer);
    const timer = setTimeout(() => {
      this.#delayed.delete(key);
      this.add(key);
    }, ms);
    this.#delayed.set(key, { at, timer });
  }

  addRateLimited(key: string): void {
    this.#metrics?.retried(this.name);
    this.addAfter(key, this.#limiter.when(key));
  }

  forget(key: string): void {
    this.#limiter.forget(key);
  }

  numRequeues(key: string): number {
    return this.#limiter.retries(key);
  }

  /** The next key, or undefined once the queue is shut down and empty. */
  get(): Promise<string | undefined> {
    const key = this.#queue.shift();
    if (key !== undefined) {
      this.#metrics?.depth(this.name, this.#queue.length);
      return new Promise((resolve) => this.#hand(key, resolve));
    }
    if (this.#shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  done(key: string): void {
    const started = this.#processing.get(key);
    this.#processing.delete(key);
    if (started !== undefined) this.#metrics?.worked(this.name, (this.#clock.now() - started) / 1000);
    if (this.#dirty.has(key) && !this.#shuttingDown) {
      const waiter = this.#waiters.shift();
      if (waiter) this.#hand(key, waiter);
      else this.#queue.push(key);
    }
    if (this.#shuttingDown && this.#processing.size === 0) this.#drained?.();
  }

  /** Stops handing out work; resolves once every in-flight key is done (client-go ShutDownWithDrain). */
  async shutDownWithDrain(): Promise<void> {
    this.shutDown();
    if (this.#processing.size === 0) return;
    await new Promise<void>((resolve) => (this.#drained = resolve));
  }

  shutDown(): void {
    this.#shuttingDown = true;
    this.#unwatch();
    for (const { timer } of this.#delayed.values()) clearTimeout(timer);
    this.#delayed.clear();
    this.#queue.drain();
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const waiter of waiters) waiter(undefined);
  }

  /** Unfinished work for the gauges, in seconds: the sum over keys being processed, and the longest. */
  #inFlight(): [number, number] {
    const now = this.#clock.now();
    let total = 0;
    let longest = 0;
    for (const started of this.#processing.values()) {
      total += now - started;
      longest = Math.max(longest, now - started);
    }
    return [total / 1000, longest / 1000];
  }

  #hand(key: string, to: (key: string) => void): void {
    const now = this.#clock.now();
    this.#dirty.delete(key);
    this.#processing.set(key, now);
    const added = this.#addedAt.get(key);
    this.#addedAt.delete(key);
    if (added !== undefined) this.#metrics?.waited(this.name, (now - added) / 1000);
    to(key);
  }
}
