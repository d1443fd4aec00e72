/**
 * The allocation table's bookkeeping against what Services show: rebuilding it after a restart
 * (`restore`), giving addresses up (`retire`, `settle`) and freeing what nobody shows any more
 * (`reconcile`). See allocator.ts for the invariants these keep.
 */
import { formatIP, parseIP, type IP } from "../../../src/net/ip.ts";
import type { ShownEvidence } from "./claim.ts";
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

export interface Evidence extends ShownEvidence {
  readonly traits: ShareTraits & { readonly id: string };
}

/** Why `ip` cannot be restored to `item` given what the table holds now, or undefined. */
const conflictOn = (view: AllocatorView, item: Evidence, ip: IP): string | undefined =>
  sharingConflict(view.table.holders(addressKey(ip), item.traits.id), item.traits, sharingRules(view, ip));

/** Keeps those of `ips` that no holder so far is in the way of, one per family; a line for each refused. */
function keep(view: AllocatorView, item: Evidence, ips: readonly IP[], remarks: string[]): IP[] {
  const kept: IP[] = [];
  for (const ip of ips) {
    if (kept.some((k) => k.family === ip.family)) continue;
    const why = conflictOn(view, item, ip);
    if (why === undefined) kept.push(ip);
    else remarks.push(`${item.traits.service}: not restoring ${formatIP(ip)}: ${why}`);
  }
  return kept;
}

/** Pass 1: the active addresses a status backs, pools or not (one outside every pool is kept, never replaced). */
function restoreBacked(view: AllocatorView, item: Evidence, remarks: string[]): void {
  const backed = item.active.filter((ip) => !item.unconfirmed.includes(ip));
  view.table.set(holdingOf(item.traits, keep(view, item, backed, remarks)));
}

/**
 * Pass 2: the addresses only an announce annotation shows, where nobody holds them now; for a family
 * refused so, the Service's own status address of it (what it held before the annotation).
 */
function restoreUnconfirmed(view: AllocatorView, item: Evidence, remarks: string[]): void {
  if (item.unconfirmed.length === 0) return;
  const held = (view.table.holding(item.traits.id)?.addresses ?? []).flatMap((a) => parseIP(a) ?? []);
  const fresh = keep(view, item, item.unconfirmed, remarks);
  const kept = [...held, ...fresh];
  const missing = item.fallback.filter((ip) => !kept.some((k) => k.family === ip.family));
  view.table.set(holdingOf(item.traits, [...kept, ...keep(view, item, missing, remarks)]));
}

/**
 * Rebuilds the table from what Services show (invariant 2), in the order given (oldest Service first, so a
 * conflict left by hand keeps the older owner). Status-backed addresses first, then those only an announce
 * annotation shows (a status outranks an annotation of any age), then retiring ones, so a stale status
 * never takes an address from its current holder. Retiring addresses outside every pool are nobody's to
 * hand out, so they are not tracked. Returns a line per address that could not be restored.
 */
export function restore(view: AllocatorView, evidence: readonly Evidence[]): string[] {
  const remarks: string[] = [];
  for (const item of evidence) restoreBacked(view, item, remarks);
  for (const item of evidence) restoreUnconfirmed(view, item, remarks);
  for (const item of evidence) {
    const old = view.table.holding(item.traits.id);
    const retiring = item.retiring
      .filter((ip) => poolOf(view.pools, ip))
      .map(addressKey)
      .filter((address) => !view.table.isUsed(address, item.traits.id) && !old?.addresses.includes(address));
    if (retiring.length > 0) view.table.set({ ...(old ?? holdingOf(item.traits, [])), retiring });
  }
  return remarks;
}
