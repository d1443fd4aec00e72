/**
 * core/v1 Events as client-go's recorder writes them: component names and reasons as upstream; a repeat
 * of the same event on the same object patches `count` and `lastTimestamp` instead of creating another;
 * from the tenth different message of one reason on one object within 10 minutes, the events are combined
 * into one ("(combined from similar events): …", client-go's EventAggregator); a per-object token bucket
 * (burst 25, one more every 5 minutes) stops a hot error loop from flooding the API server. Recording
 * never blocks a sync: events queue and are sent in the background.
 *
 * Beyond client-go, whose broadcaster sends one event at a time and drops what exceeds a 1,000-event
 * queue: up to 8 events are in flight at once (repeats of one event stay in order), and the queue holds
 * 10,000 (the oldest dropped first). Both bounds are the process's: each of N controller threads holds
 * 1 / N of them (`share`), so a manager with threads queues and sends no more events than one without.
 * The sends count against the process-wide token bucket like every other request, but as background
 * requests: they take only tokens no controller write is waiting for.
 * When the controllers' own writes saturate `--kube-api-qps` (a burst of thousands of Nodes being
 * initialised, thousands of load balancers created) they keep all of it, and the events of the burst
 * follow late (with the times they happened) instead of being lost.
 */
import type { Logger } from "../log/logger.ts";
import { realClock, rfc3339, type Clock } from "../util/clock.ts";
import { EVENTS, type KubeApi } from "./api.ts";
import type { KubeObject, ObjectReference } from "./objects.ts";
import { isNotFound, KubeUnreachableError } from "./transport.ts";
import { BoundedMap } from "../util/bounded-map.ts";
import { KeyedLock } from "../util/concurrency.ts";
import { Fifo } from "../util/fifo.ts";
import { errorMessage } from "./worker.ts";

export type EventType = "Normal" | "Warning";

export interface EventRecorder {
  event(object: KubeObject, type: EventType, reason: string, message: string): void;
}

export interface EventSink {
  /** A recorder whose events carry `component` as their source (upstream: the controller name). */
  recorder(component: string): EventRecorder;
  /** Sends queued events until `signal` aborts, then flushes what is left. */
  run(signal: AbortSignal): Promise<void>;
}

export interface EventSinkOptions {
  readonly api: KubeApi;
  readonly logger: Logger;
  readonly host: string;
  readonly clock?: Clock;
  readonly onDrop?: (reason: "spam" | "full" | "error") => void;
  /** This sink's part of the process-wide queue and senders: 1 / N in each of N controller threads. */
  readonly share?: number;
}

interface Pending {
  readonly ref: ObjectReference;
  readonly type: EventType;
  readonly reason: string;
  readonly message: string;
  readonly component: string;
  readonly at: number;
  /** What a repeat of it has in common (`record`): the whole event, or all but the message once combined. */
  readonly key: string;
  /** Sends that failed to reach the API server so far. */
  readonly tries?: number;
}

interface Seen {
  readonly name: string;
  readonly namespace: string;
  count: number;
  lastAt: number;
}

const MAX_PENDING = 10_000;
const SEND_CONCURRENCY = 8;
const FINAL_FLUSH_MS = 2000;
/**
 * client-go's LRU caches hold the 4,096 objects (spam filter) and events (aggregation) last used; a
 * `BoundedMap` of as many holds no more, and keeps each for at least the 2,048 writes after its last use.
 */
const MAX_TRACKED = 4096;
const AGGREGATE_WINDOW_MS = 10 * 60_000;
/** client-go's `defaultAggregateMaxEvents`: this many different messages of one kind of event are combined. */
const AGGREGATE_MAX_EVENTS = 10;
const COMBINED_PREFIX = "(combined from similar events): ";
const SPAM_BURST = 25;
const SPAM_REFILL_MS = 5 * 60_000;
/**
 * client-go's `maxTriesPerEvent` and sleep: an event whose send did not reach the API server (a restart,
 * a connection reset) is sent again, 10 s later (the first wait jittered), up to 12 tries. One the API
 * server answered with a refusal is not.
 */
const MAX_TRIES = 12;
const RETRY_MS = 10_000;

export function referenceOf(obj: KubeObject): ObjectReference {
  return {
    apiVersion: obj.apiVersion ?? "v1",
    kind: obj.kind ?? "",
    name: obj.metadata.name,
    namespace: obj.metadata.namespace,
    uid: obj.metadata.uid,
    resourceVersion: obj.metadata.resourceVersion,
  };
}

/** Per-object token bucket of client-go's EventSourceObjectSpamFilter. */
function spamFilter(): (objectKey: string, now: number) => boolean {
  const buckets = new BoundedMap<{ tokens: number; at: number }>(MAX_TRACKED);
  return (objectKey, now) => {
    const bucket = buckets.get(objectKey) ?? { tokens: SPAM_BURST, at: now };
    bucket.tokens = Math.min(SPAM_BURST, bucket.tokens + (now - bucket.at) / SPAM_REFILL_MS);
    bucket.at = now;
    buckets.set(objectKey, bucket);
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  };
}

/**
 * client-go's EventAggregator: whether an event of this kind (everything but its message) has had
 * `AGGREGATE_MAX_EVENTS` different messages, none more than 10 minutes after the one before; it then
 * forgets one of them, as client-go does, so the set stays bounded.
 */
function similarEvents(): (similar: string, message: string, now: number) => boolean {
  const records = new BoundedMap<{ messages: Set<string>; lastAt: number }>(MAX_TRACKED);
  return (similar, message, now) => {
    const prior = records.get(similar);
    const record = prior && now - prior.lastAt <= AGGREGATE_WINDOW_MS ? prior : { messages: new Set<string>() };
    const next = { messages: record.messages.add(message), lastAt: now };
    records.set(similar, next);
    if (next.messages.size < AGGREGATE_MAX_EVENTS) return false;
    next.messages.delete(next.messages.values().next().value as string);
    return true;
  };
}

function eventName(ref: ObjectReference, at: number): string {
  const unique = BigInt(at) * 1_000_000n + BigInt(Math.floor(Math.random() * 1_000_000));
  return `${ref.name}.${unique.toString(16)}`;
}

export function createEventSink(options: EventSinkOptions): EventSink {
  const clock = options.clock ?? realClock;
  const pending = new Fifo<Pending>();
  const seen = new BoundedMap<Seen>(MAX_TRACKED);
  const allowed = spamFilter();
  const combines = similarEvents();
  const drop = options.onDrop ?? ((): void => undefined);
  const inOrder = new KeyedLock();
  const share = options.share ?? 1;
  const maxPending = Math.ceil(MAX_PENDING * share);
  const senders = Math.max(1, Math.round(SEND_CONCURRENCY * share));
  let wake: (() => void) | undefined;
  // Fires FINAL_FLUSH_MS after shutdown begins: sends still waiting for a spare token, or on the wire, stop.
  const giveUp = new AbortController();

  async function aggregate(prior: Seen, e: Pending): Promise<boolean> {
    const at = e.at;
    try {
      // The message too, as client-go's patch has it: a combined event shows the latest.
      const patch = { count: prior.count + 1, lastTimestamp: rfc3339(at), message: e.message };
      await options.api.patchVersion(EVENTS, prior.name, patch, {
        namespace: prior.namespace,
        type: "merge",
        background: true,
        signal: giveUp.signal,
      });
      prior.count += 1;
      prior.lastAt = at;
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
  }

  async function send(e: Pending): Promise<void> {
    const key = e.key;
    const prior = seen.get(key);
    if (prior && e.at - prior.lastAt < AGGREGATE_WINDOW_MS && (await aggregate(prior, e))) return;
    const namespace = e.ref.namespace || "default";
    const name = eventName(e.ref, e.at);
    const stamp = rfc3339(e.at);
    // The answer is not read: asked for as metadata alone, and not decoded.
    await options.api.createVersion(
      EVENTS,
      {
        apiVersion: "v1",
        kind: "Event",
        metadata: { name, namespace },
        involvedObject: e.ref,
        reason: e.reason,
        message: e.message,
        type: e.type,
        source: { component: e.component, host: options.host },
        reportingComponent: e.component,
        reportingInstance: options.host,
        firstTimestamp: stamp,
        lastTimestamp: stamp,
        count: 1,
      },
      { background: true, signal: giveUp.signal },
    );
    seen.set(key, { name, namespace, count: 1, lastAt: e.at });
  }

  /** One sender: takes queued events in order until the deadline; repeats of the same event wait for each other. */
  async function sendQueued(deadline: number): Promise<void> {
    while (pending.length > 0 && clock.now() < deadline && !giveUp.signal.aborted) {
      const event = pending.shift() as Pending;
      try {
        await inOrder.withLock(event.key, () => send(event));
      } catch (error) {
        const tries = (event.tries ?? 0) + 1;
        if (error instanceof KubeUnreachableError && tries < MAX_TRIES && !giveUp.signal.aborted) {
          retryLater({ ...event, tries });
          continue;
        }
        drop("error");
        options.logger.warn(
          `could not write event ${event.reason} on ${event.ref.kind} ${event.ref.name}: ${errorMessage(error)}`,
        );
      }
    }
  }

  function retryLater(event: Pending): void {
    const delay = event.tries === 1 ? RETRY_MS * Math.random() : RETRY_MS;
    clock.sleep(delay, giveUp.signal).then(
      () => enqueue(event),
      () => drop("error"),
    );
  }

  function enqueue(event: Pending): void {
    if (pending.length >= maxPending) {
      pending.shift();
      drop("full");
    }
    pending.push(event);
    wake?.();
  }

  async function drain(deadline = Number.POSITIVE_INFINITY): Promise<void> {
    await Promise.all(Array.from({ length: senders }, () => sendQueued(deadline)));
  }

  function record(component: string, object: KubeObject, e: Pick<Pending, "type" | "reason" | "message">): void {
    const { type, reason, message } = e;
    const now = clock.now();
    const ref = referenceOf(object);
    if (!allowed(`${component}/${ref.kind}/${ref.namespace ?? ""}/${ref.name}`, now)) {
      drop("spam");
      return;
    }
    const similar = [component, ref.kind, ref.namespace, ref.name, ref.uid, type, reason].join("\u0000");
    const event = { ref, component, at: now, type, reason };
    if (combines(similar, message, now)) enqueue({ ...event, key: similar, message: COMBINED_PREFIX + message });
    else enqueue({ ...event, key: `${similar}\u0000${message}`, message });
  }

  return {
    recorder: (component) => ({
      event: (object, type, reason, message) => record(component, object, { type, reason, message }),
    }),
    async run(signal) {
      const onAbort = (): void => {
        wake?.();
        // Events are best effort: on shutdown flush what fits in a short window, not a rate-limited backlog.
        void clock.sleep(FINAL_FLUSH_MS).then(() => giveUp.abort());
      };
      signal.addEventListener("abort", onAbort, { once: true });
      if (signal.aborted) onAbort();
      try {
        while (!signal.aborted) {
          await drain();
          if (pending.length === 0 && !signal.aborted) await new Promise<void>((resolve) => (wake = resolve));
          wake = undefined;
        }
      } finally {
        signal.removeEventListener("abort", onAbort);
      }
      await drain(clock.now() + FINAL_FLUSH_MS);
      for (const _ of pending.drain()) drop("full");
    },
  };
}
