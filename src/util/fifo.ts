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

/**
 * Which waiting work goes first: `urgent` (the second write of a sync already under way, which should not
 * wait behind every first write), then `normal`, then `background` (Events, which never delay a write).
 */
export type Precedence = "urgent" | "normal" | "background";

/** First-in first-out queues, one per precedence, served as one: each kind in arrival order. */
export class PriorityFifo<T> {
  readonly #queues: Readonly<Record<Precedence, Fifo<T>>> = {
    urgent: new Fifo<T>(),
    normal: new Fifo<T>(),
    background: new Fifo<T>(),
  };

  get length(): number {
    const q = this.#queues;
    return q.urgent.length + q.normal.length + q.background.length;
  }

  push(item: T, precedence: Precedence = "normal"): void {
    this.#queues[precedence].push(item);
  }

  /** The oldest item of the first precedence that has any, removed; undefined when all are empty. */
  shift(): T | undefined {
    const q = this.#queues;
    return q.urgent.shift() ?? q.normal.shift() ?? q.background.shift();
  }
}
