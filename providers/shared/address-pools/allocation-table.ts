/**
 * Who holds which address, in memory. The table is the allocator's only state and the single authority
 * for "is this address free": it is filled once from the Services after the cache syncs and from then on
 * changed only synchronously, with no `await` between reading it and writing it.
 *
 * A holding has active addresses (the Service's load-balancer addresses) and retiring ones: addresses it
 * gave up that some Service object may still show (status not yet rewritten, announce annotation not yet
 * removed). Retiring addresses stay taken until the cache shows them nowhere, so an address visible on the
 * cluster is never handed to a second Service.
 */
import type { ShareTraits } from "./sharing.ts";

export interface Holding extends ShareTraits {
  readonly id: string;
  /** Canonical address texts, in the Service's family order (its ingress order). */
  readonly addresses: readonly string[];
  readonly retiring: readonly string[];
}

export class AllocationTable {
  readonly #byId = new Map<string, Holding>();
  readonly #byAddress = new Map<string, Map<string, Holding>>();
  readonly #onFreed: (() => void) | undefined;

  /**
   * `onFreed` is called, synchronously, whenever a holding lets go of an address (it may be free now, or
   * shareable by others): what waited for one may get it.
   */
  constructor(options: { onFreed?: () => void } = {}) {
    this.#onFreed = options.onFreed;
  }

  get size(): number {
    return this.#byId.size;
  }

  holding(id: string): Holding | undefined {
    return this.#byId.get(id);
  }

  /** Everyone on `address` except `exceptId`; a Service retiring the address shares it with nobody. */
  holders(address: string, exceptId?: string): ShareTraits[] {
    const on = [...(this.#byAddress.get(address)?.values() ?? [])].filter((h) => h.id !== exceptId);
    return on.map((h) => (h.addresses.includes(address) ? h : { ...h, key: undefined, givingUp: true }));
  }

  isUsed(address: string, exceptId?: string): boolean {
    const on = this.#byAddress.get(address);
    return on !== undefined && [...on.keys()].some((id) => id !== exceptId);
  }

  /** Every address in use; for finding an address to share. */
  addresses(): IterableIterator<string> {
    return this.#byAddress.keys();
  }

  /** A snapshot, safe to iterate while changing the table. */
  holdings(): Holding[] {
    return [...this.#byId.values()];
  }

  /** Replaces whatever `holding.id` held before; a holding with no addresses at all is dropped. */
  set(holding: Holding): void {
    const before = this.#remove(holding.id);
    const all = [...new Set([...holding.addresses, ...holding.retiring])];
    if (before && addressesOf(before).some((a) => !all.includes(a))) this.#onFreed?.();
    if (all.length === 0) return;
    this.#byId.set(holding.id, holding);
    for (const address of all) {
      const on = this.#byAddress.get(address) ?? new Map<string, Holding>();
      on.set(holding.id, holding);
      this.#byAddress.set(address, on);
    }
  }

  release(id: string): Holding | undefined {
    const holding = this.#remove(id);
    if (holding && addressesOf(holding).length > 0) this.#onFreed?.();
    return holding;
  }

  #remove(id: string): Holding | undefined {
    const holding = this.#byId.get(id);
    if (!holding) return undefined;
    this.#byId.delete(id);
    for (const address of addressesOf(holding)) {
      const on = this.#byAddress.get(address);
      on?.delete(id);
      if (on?.size === 0) this.#byAddress.delete(address);
    }
    return holding;
  }
}

const addressesOf = (holding: Holding): string[] => [...new Set([...holding.addresses, ...holding.retiring])];
