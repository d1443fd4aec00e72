/**
 * The allocation table's bookkeeping against what Services show: rebuilding it after a restart
 * (`restore`), giving addresses up (`retire`, `settle`) and freeing what nobody shows any more
 * (`reconcile`). See allocator.ts for the invariants these keep.
 */
import { formatIP, type IP } from "../../../src/net/ip.ts";
import type { AllocationTable, Holding } from "./allocation-table.ts";
import { holdingOf, sharingRules, type AllocatorView } from "./allocator.ts";
import { addressKey, poolOf } from "./pools.ts";
import { sharingConflict, type ShareTraits } from "./sharing.ts";

/** The Service gives up every address; each stays taken while `stillShown` says the Service shows it. */
export function retire(table: AllocationTable, id: string, stillShown: (address: string) => boolean): void {
  const old = table.holding(id);
  if (old) table.set({ ...old, addresses: [], retiring: [...old.addresses, ...old.retiring].filter(stillShown) });
}

/** Forgets retiring addresses the Service no longer shows. */
export function settle(table: AllocationTable, id: string, stillShown: (address: string) => boolean): void {
  const old = table.holding(id);
  if (old && old.retiring.some((a) => !stillShown(a))) table.set({ ...old, retiring: old.retiring.filter(stillShown) });
}

/**
 * What the Service behind a holding shows now (status and announce annotations), or undefined when that
 * Service is gone (deleted, or re-created under a new UID).
 */
export type ShownBy = (holding: Holding) => ReadonlySet<string> | undefined;

/**
 * Frees what no Service shows any more: holdings of gone Services, retiring addresses shown nowhere. Returns how many
 * holdings changed.
 */
export function reconcile(table: AllocationTable, shownBy: ShownBy): number {
  let changed = 0;
  for (const holding of table.holdings()) {
    const shown = shownBy(holding);
    if (shown === undefined) table.release(holding.id);
    else if (holding.retiring.some((a) => !shown.has(a))) settle(table, holding.id, (a) => shown.has(a));
    else continue;
    changed++;
  }
  return changed;
}

export interface Evidence {
  readonly traits: ShareTraits & { readonly id: string };
  /** What the Service holds. */
  readonly active: readonly IP[];
  /** What it may still show but no longer holds. */
  readonly retiring: readonly IP[];
}

/** Active addresses, pools or not (an address outside every pool is kept, never silently replaced). */
function restoreActive(view: AllocatorView, item: Evidence, remarks: string[]): IP[] {
  const kept: IP[] = [];
  for (const ip of item.active) {
    if (kept.some((k) => k.family === ip.family)) continue;
    const why = sharingConflict(
      view.table.holders(addressKey(ip), item.traits.id),
      item.traits,
      sharingRules(view, ip),
    );
    if (why === undefined) kept.push(ip);
    else remarks.push(`${item.traits.service}: not restoring ${formatIP(ip)}: ${why}`);
  }
  return kept;
}

/**
 * Rebuilds the table from what Services show (invariant 2), in the order given (oldest Service first, so a
 * conflict left by hand keeps the older owner). Active addresses first, then retiring ones, so a stale
 * status never takes an address from its current holder. Retiring addresses outside every pool are
 * nobody's to hand out, so they are not tracked. Returns a line per address that could not be restored.
 */
export function restore(view: AllocatorView, evidence: readonly Evidence[]): string[] {
  const remarks: string[] = [];
  for (const item of evidence) view.table.set(holdingOf(item.traits, restoreActive(view, item, remarks)));
  for (const item of evidence) {
    const retiring = item.retiring
      .filter((ip) => poolOf(view.pools, ip))
      .map(addressKey)
      .filter((address) => !view.table.isUsed(address, item.traits.id));
    const old = view.table.holding(item.traits.id);
    if (retiring.length > 0) view.table.set({ ...(old ?? holdingOf(item.traits, [])), retiring });
  }
  return remarks;
}
