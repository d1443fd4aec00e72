/** Informer handlers shared by controllers. */
import type { EventHandler } from "./informer.ts";

/**
 * For controllers whose work covers every object at once (one queue key): adds and deletes always call
 * `enqueue`, updates only when `relevant(old, new)`.
 */
export function enqueueOnChange<T>(enqueue: () => void, relevant: (oldObj: T, newObj: T) => boolean): EventHandler<T> {
  return {
    add: enqueue,
    update: (oldObj, newObj) => {
      if (relevant(oldObj, newObj)) enqueue();
    },
    delete: enqueue,
  };
}
