/** Small in-memory stand-ins for unit tests of sync functions: listers over maps, a recording event recorder. */
import type { EventRecorder, EventType } from "../../src/kube/events.ts";
import type { Lister } from "../../src/kube/informer.ts";
import type { KubeObject } from "../../src/kube/objects.ts";

export function mapLister<T extends KubeObject>(items: Map<string, T>): Lister<T> {
  return {
    get: (key) => items.get(key),
    list: () => [...items.values()],
    get size() {
      return items.size;
    },
  };
}

export interface RecordedEvent {
  readonly object: string;
  readonly type: EventType;
  readonly reason: string;
  readonly message: string;
}

export function recordingRecorder(events: RecordedEvent[]): EventRecorder {
  return {
    event: (object, type, reason, message) => void events.push({ object: object.metadata.name, type, reason, message }),
  };
}

/** The error `promise` rejects with (fails the test if it resolves). */
export async function rejection(promise: Promise<unknown>): Promise<Error> {
  const outcome = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!(outcome instanceof Error)) throw new Error(`expected a rejection with an Error, got ${String(outcome)}`);
  return outcome;
}
