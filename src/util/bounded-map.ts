/**
 * A map that forgets what has not been used for a while: at most `max` entries, in two generations of
 * `max / 2`. Writes go to the young one; when it is full it becomes the old one and the former old one is
 * dropped whole; reading an old entry moves it back to the young one. So an entry survives at least
 * `max / 2` writes of other keys after its last use, like the LRU caches of client-go's event
 * recorder, without their per-write eviction: deleting a JavaScriptCore Map's oldest entry scans past
 * every entry deleted before it, which cost 10–20 µs a write once thousands of Nodes had come and gone
 * (2.7 % of the manager's CPU in a 20,000-Node burst).
 */
export class BoundedMap<V> {
  readonly #half: number;
  #young = new Map<string, V>();
  #old = new Map<string, V>();

  constructor(max: number) {
    this.#half = Math.max(1, Math.floor(max / 2));
  }

  get size(): number {
    return this.#young.size + this.#old.size;
  }

  /** Whether `key` is held; unlike `get`, it does not count as a use. */
  has(key: string): boolean {
    return this.#young.has(key) || this.#old.has(key);
  }

  get(key: string): V | undefined {
    const young = this.#young.get(key);
    if (young !== undefined || this.#young.has(key)) return young;
    if (!this.#old.has(key)) return undefined;
    const value = this.#old.get(key) as V;
    this.set(key, value);
    return value;
  }

  set(key: string, value: V): void {
    this.#old.delete(key);
    this.#young.set(key, value);
    if (this.#young.size < this.#half) return;
    this.#old = this.#young;
    this.#young = new Map();
  }

  delete(key: string): void {
    this.#young.delete(key);
    this.#old.delete(key);
  }
}
