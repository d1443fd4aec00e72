/**
 * How long a watch that brings only heartbeats leaves its connection unread between reads.
 *
 * A live cluster's Node watch is mostly heartbeats (heartbeats.ts), and each read of the socket wakes
 * the process: in a quiet cluster each wake carried one event, and the wake cost more than the event.
 * After a read whose events were all heartbeats the connection is left unread for a while, so the
 * heartbeats that come meanwhile wait in the kernel and are read at one wake. Any other event (a new
 * Node, a real change, a bookmark) reads on at once. The pause is at most `MAX_HOLD_MS` (a real change
 * that comes during one is seen that much later), and shorter when the stream is busy: at most about
 * `MAX_HELD_BYTES` are left waiting, well inside the socket's receive buffer, so the API server never
 * finds this watcher slow to read (its watch cache ends a watcher that falls behind).
 */

/** The longest pause: a real change is seen at most this much later than it would be. */
export const MAX_HOLD_MS = 250;
/** About the most bytes left unread in the kernel during a pause. */
export const MAX_HELD_BYTES = 64 * 1024;

export class WatchPace {
  #heartbeats = 0;
  #changes = 0;
  #bytes = 0;
  #since: number;
  readonly #now: () => number;

  /** `now`: milliseconds, from the informer's clock. */
  constructor(now: () => number) {
    this.#now = now;
    this.#since = now();
  }

  /** One event read: its size in bytes, and whether it was a heartbeat. */
  heard(bytes: number, heartbeat: boolean): void {
    this.#bytes += bytes;
    if (heartbeat) this.#heartbeats++;
    else this.#changes++;
  }

  /**
   * Everything read is used up: how long to leave the connection unread now (0: read at once). Starts
   * counting afresh.
   */
  next(): number {
    const now = this.#now();
    const elapsed = now - this.#since;
    const quiet = this.#heartbeats > 0 && this.#changes === 0;
    const bytes = this.#bytes;
    this.#since = now;
    this.#heartbeats = this.#changes = this.#bytes = 0;
    if (!quiet) return 0;
    // The time that gathers about MAX_HELD_BYTES at the rate the events came since the last read.
    return Math.min(MAX_HOLD_MS, Math.floor((MAX_HELD_BYTES * elapsed) / Math.max(bytes, 1)));
  }
}
