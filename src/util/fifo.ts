/**
 * A first-in first-out queue whose `shift` costs the same at any length (an array's `shift` moves every
 * element behind the first: a backlog of thousands of waiters or events made each dequeue a copy of it).
 */
export class Fifo<T> {
  #items: (T | undefined)[] = [];
  #head = 0;

  get length(): number {
    return this.#items.length - this.#head;
  }

  push(item: T): void {
    this.#items.push(item);
  }

  /** The oldest item, removed; undefined when empty. */
  shift(): T | undefined {
    if (this.#head >= this.#items.length) return undefined;
    const item = this.#items[this.#head];
    this.#items[this.#head] = undefined;
    this.#head += 1;
    // Drop the consumed prefix once it is most of the array: amortised O(1), memory bounded by the backlog.
    if (this.#head >= 1024 && this.#head * 2 >= this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }

  /** Every item still queued, oldest first; the queue is left empty. */
  drain(): T[] {
    const rest = this.#items.slice(this.#head) as T[];
    this.#items = [];
    this.#head = 0;
    return rest;
  }
}
