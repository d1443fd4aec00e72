/**
 * One abort listener per signal however many wait on it. Every request, token wait and sleep of a
 * controller listens to the controller's one stop signal, and an AbortSignal removes a listener by
 * scanning all of them: with 5,000 Nodes in flight an add and remove cost 21 µs instead of 0.4.
 */
const subscribers = new WeakMap<AbortSignal, Set<() => void>>();

const nothing = (): void => undefined;

/**
 * Calls `callback` when `signal` aborts, like `addEventListener("abort", callback, { once: true })`: not
 * if it has already aborted. Returns the unsubscribe. Callbacks run in the order they subscribed; one
 * that throws does not keep the others from running, and the first error is then thrown from the one
 * listener (reported as a throwing listener's would be).
 */
export function onAbort(signal: AbortSignal | undefined, callback: () => void): () => void {
  if (!signal || signal.aborted) return nothing;
  let waiting = subscribers.get(signal);
  if (!waiting) {
    const created = new Set<() => void>();
    subscribers.set(signal, created);
    signal.addEventListener("abort", () => fire(signal, created), { once: true });
    waiting = created;
  }
  const subscribed = waiting;
  const entry = (): void => callback();
  subscribed.add(entry);
  return () => void subscribed.delete(entry);
}

function fire(signal: AbortSignal, waiting: Set<() => void>): void {
  subscribers.delete(signal);
  const failed: unknown[] = [];
  for (const callback of waiting) {
    try {
      callback();
    } catch (error) {
      failed.push(error);
    }
  }
  waiting.clear();
  if (failed.length > 0) throw failed[0];
}
