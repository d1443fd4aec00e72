/**
 * A semaphore whose count lives in a SharedArrayBuffer, so that every thread holding it draws from one
 * limit: the controller threads' requests on the wire. A thread that finds every slot taken waits for a
 * release in any thread (`Atomics.waitAsync`, so its event loop goes on); its own waiters are served
 * by precedence, each kind in arrival order. A released slot goes back to the shared count, never
 * straight to the releasing thread's next waiter, so a busy thread cannot keep slots from the others.
 */
import type { Slots } from "./concurrency.ts";
import { PriorityFifo, type Precedence } from "./fifo.ts";

/** What another thread needs to attach: the shared count and the limit. */
export interface SharedSlots {
  readonly buffer: SharedArrayBuffer;
  readonly limit: number;
}

/** The longest a waiting thread sleeps without a wake-up before it looks again (a lost notify costs this). */
const RECHECK_MS = 50;

export class SharedSemaphore implements Slots {
  readonly #held: Int32Array;
  readonly #limit: number;
  readonly #waiters = new PriorityFifo<() => void>();
  #pumping = false;

  private constructor(shared: SharedSlots) {
    this.#held = new Int32Array(shared.buffer, 0, 1);
    this.#limit = Math.max(1, shared.limit);
  }

  static create(limit: number): SharedSemaphore {
    return new SharedSemaphore({ buffer: new SharedArrayBuffer(4), limit });
  }

  /** The same slots seen from another thread. */
  static attach(shared: SharedSlots): SharedSemaphore {
    return new SharedSemaphore(shared);
  }

  get shared(): SharedSlots {
    return { buffer: this.#held.buffer as SharedArrayBuffer, limit: this.#limit };
  }

  /** Slots held now, by every thread together. */
  get held(): number {
    return Atomics.load(this.#held, 0);
  }

  async run<T>(work: () => Promise<T>, precedence: Precedence = "normal"): Promise<T> {
    if (this.#waiters.length > 0 || !this.#tryTake()) {
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve, precedence);
        if (!this.#pumping) void this.#pump();
      });
    }
    try {
      return await work();
    } finally {
      Atomics.sub(this.#held, 0, 1);
      Atomics.notify(this.#held, 0);
    }
  }

  #tryTake(): boolean {
    for (;;) {
      const held = Atomics.load(this.#held, 0);
      if (held >= this.#limit) return false;
      if (Atomics.compareExchange(this.#held, 0, held, held + 1) === held) return true;
    }
  }

  /** Hands slots to this thread's waiters, oldest first, as releases anywhere free them. */
  async #pump(): Promise<void> {
    this.#pumping = true;
    try {
      while (this.#waiters.length > 0) {
        if (this.#tryTake()) {
          this.#waiters.shift()?.();
          continue;
        }
        const wait = Atomics.waitAsync(this.#held, 0, this.#limit, RECHECK_MS);
        if (wait.async) await wait.value;
      }
    } finally {
      this.#pumping = false;
    }
  }
}
