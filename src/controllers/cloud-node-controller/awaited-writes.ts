/**
 * Node patches whose watch event a sync waits for, by UID: the written resourceVersion, woken when the
 * informer delivers it (`seen`) or at its deadline. One timer serves every wait, set for the earliest
 * deadline: a sleep per Node raced against the watch fired after almost every wait had already ended,
 * thousands of times in a burst.
 */
import type { Clock } from "../../util/clock.ts";

interface Wait {
  readonly version: string;
  readonly until: number;
  readonly wake: () => void;
}

export class AwaitedWrites {
  readonly #clock: Clock;
  readonly #waits = new Map<string, Wait>();
  /** When the earliest pending timer fires; Infinity when none is pending. */
  #due = Infinity;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  get size(): number {
    return this.#waits.size;
  }

  /** Resolves once the watch shows `version` of the Node `uid`, or after `ms`. */
  wait(uid: string, version: string, ms: number): Promise<void> {
    this.#waits.get(uid)?.wake();
    return new Promise((resolve) => {
      const wait: Wait = {
        version,
        until: this.#clock.now() + ms,
        wake: () => {
          if (this.#waits.get(uid) === wait) this.#waits.delete(uid);
          resolve();
        },
      };
      this.#waits.set(uid, wait);
      this.#arm(wait.until);
    });
  }

  /** The informer delivered this version of the Node. */
  seen(uid: string, version: string | undefined): void {
    const wait = this.#waits.get(uid);
    if (wait && wait.version === version) wait.wake();
  }

  /** The Node is gone: its wait ends now. */
  forget(uid: string): void {
    this.#waits.get(uid)?.wake();
  }

  #arm(until: number): void {
    if (until >= this.#due) return;
    this.#due = until;
    void this.#clock.sleep(Math.max(0, until - this.#clock.now())).then(() => this.#sweep(until));
  }

  #sweep(firedFor: number): void {
    if (firedFor === this.#due) this.#due = Infinity;
    const now = this.#clock.now();
    let next = Infinity;
    // Waking deletes the wait: a Map's iteration carries on past entries deleted during it.
    for (const wait of this.#waits.values()) {
      if (wait.until <= now) wait.wake();
      else next = Math.min(next, wait.until);
    }
    if (next < Infinity) this.#arm(next);
  }
}
