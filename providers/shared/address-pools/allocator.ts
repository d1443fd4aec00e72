/**
 * The allocator: pure decisions over the allocation table, and the two synchronous ways the table changes
 * (`assign`, `restore`).
 *
 * Invariants (why no address is ever handed out twice, across concurrent syncs and restarts):
 * 1. An address is free only if the table says so. `assign` decides and records in one synchronous step,
 *    so two concurrent `ensureLoadBalancer` calls (JavaScript runs one at a time between awaits) see each
 *    other's results. The caller writes an address anywhere (annotation, then status) only after recording.
 * 2. Before the first decision the table is rebuilt from what Services show: their announce annotations
 *    and `status.loadBalancer.ingress`. So every address visible on the cluster is taken before anything is
 *    handed out.
 * 3. An address leaves the table only when no Service object shows it any more: a Service that moves or
 *    deletes its load balancer turns its addresses into retiring ones, which `reconcile` frees once the
 *    cache shows them nowhere (or the Service is gone). Together with 2: an address some Service shows is
 *    never given to another one, before or after a restart.
 * 4. An address recorded but never written (the process died between `assign` and the annotation write)
 *    is shown nowhere, so after a restart it is free and held by nobody: handing it out again is no
 *    duplicate. The annotation is written before the status is returned, so a Service whose status was
 *    never written still shows its address through the annotation.
 * 5. Sharing is the only way two Services meet on one address, and only under `sharingConflict`'s rules;
 *    a retiring address is shared with nobody.
 */
import { formatIP, parseIP, type IP, type IPFamily } from "../../../src/net/ip.ts";
import { AllocationTable, type Holding } from "./allocation-table.ts";
import type { Claim } from "./claim.ts";
import { addressKey, candidatePools, familyName, poolContains, poolOf, servesNamespace, type Pool } from "./pools.ts";
import { sharingConflict, type ShareTraits } from "./sharing.ts";

export { AllocationTable, type Holding } from "./allocation-table.ts";

export interface AllocatorView {
  readonly table: AllocationTable;
  readonly pools: readonly Pool[];
  /** The sharing annotation's key, for messages. */
  readonly sharingAnnotation: string;
}

export type Decision = { readonly ok: true; readonly addresses: readonly IP[]; readonly remarks: readonly string[] } | { readonly ok: false; readonly problem: string };

type Choice = { readonly ip: IP; readonly remark?: string } | { readonly problem: string };

/** Why `claim` may not have `ip`, phrased to follow the address: "… is not in any address pool". */
function addressProblem(view: AllocatorView, claim: Claim, ip: IP): string | undefined {
  const pool = poolOf(view.pools, ip);
  if (!pool) return "is not in any address pool";
  if (!servesNamespace(pool, claim.namespace)) return `is in address pool ${pool.name}, which is reserved for namespace(s) ${pool.namespaces.join(", ")}`;
  if (claim.pool !== undefined && pool.name !== claim.pool) return `is in address pool ${pool.name}, but the Service asks for pool ${claim.pool}`;
  const why = sharingConflict(view.table.holders(addressKey(ip), claim.id), claim, view.sharingAnnotation);
  return why === undefined ? undefined : `is not available: ${why}`;
}

/** An address in `pool` already used only by Services this claim may share with. */
function shareable(view: AllocatorView, claim: Claim, pool: Pool, family: IPFamily): IP | undefined {
  if (claim.key === undefined) return undefined;
  for (const address of view.table.addresses()) {
    const ip = parseIP(address);
    if (!ip || ip.family !== family || !poolContains(pool, ip)) continue;
    const others = view.table.holders(address, claim.id);
    if (others.length > 0 && sharingConflict(others, claim, view.sharingAnnotation) === undefined) return ip;
  }
  return undefined;
}

/** The lowest address of `family` in `pool` nobody else holds. Costs O(addresses in use), not O(pool size). */
function firstFree(view: AllocatorView, claim: Claim, pool: Pool, family: IPFamily): IP | undefined {
  for (const range of pool.ranges) {
    if (range.family !== family) continue;
    for (let value = range.first; value <= range.last; value++) {
      const ip: IP = { family, value };
      if (!view.table.isUsed(addressKey(ip), claim.id)) return ip;
    }
  }
  return undefined;
}

function fresh(view: AllocatorView, claim: Claim, family: IPFamily): Choice {
  const pools = candidatePools(view.pools, { namespace: claim.namespace, family, pool: claim.pool });
  const where = claim.pool === undefined ? `namespace ${claim.namespace}` : `address pool ${claim.pool}`;
  if (pools.length === 0) return { problem: `no address pool offers ${familyName(family)} addresses to ${where}` };
  for (const pool of pools) {
    const ip = shareable(view, claim, pool, family);
    if (ip) return { ip };
  }
  for (const pool of pools) {
    const ip = firstFree(view, claim, pool, family);
    if (ip) return { ip };
  }
  return { problem: `no free ${familyName(family)} address in address pool(s) ${pools.map((p) => p.name).join(", ")}` };
}

function chooseFor(view: AllocatorView, claim: Claim, family: IPFamily): Choice {
  const requested = claim.requested.find((ip) => ip.family === family);
  if (requested) {
    const why = addressProblem(view, claim, requested);
    return why === undefined ? { ip: requested } : { problem: `requested address ${formatIP(requested)} ${why}` };
  }
  const current = view.table
    .holding(claim.id)
    ?.addresses.map((a) => parseIP(a))
    .find((ip) => ip?.family === family);
  if (!current) return fresh(view, claim, family);
  const why = addressProblem(view, claim, current);
  if (why === undefined) return { ip: current };
  const next = fresh(view, claim, family);
  return "ip" in next ? { ip: next.ip, remark: `address ${formatIP(current)} ${why}; moved to ${formatIP(next.ip)}` } : next;
}

/**
 * The addresses `claim` should hold: requested ones if allowed, else the ones it holds while still valid,
 * else an address it may share, else the first free one. Reads the table only.
 */
export function decide(view: AllocatorView, claim: Claim): Decision {
  const addresses: IP[] = [];
  const remarks: string[] = [];
  for (const [i, family] of claim.families.entries()) {
    const choice = chooseFor(view, claim, family);
    if ("ip" in choice) {
      addresses.push(choice.ip);
      if (choice.remark) remarks.push(choice.remark);
    } else if (i < claim.required) {
      return { ok: false, problem: choice.problem };
    } else {
      remarks.push(`no ${familyName(family)} address (the Service only prefers dual-stack): ${choice.problem}`);
    }
  }
  return { ok: true, addresses, remarks };
}

export function holdingOf(claim: ShareTraits & { readonly id: string }, addresses: readonly IP[], retiring: readonly string[] = []): Holding {
  const active = addresses.map(addressKey);
  return { id: claim.id, service: claim.service, key: claim.key, backend: claim.backend, ports: claim.ports, addresses: active, retiring: retiring.filter((a) => !active.includes(a)) };
}

/**
 * Decide and record in one synchronous step (invariant 1). Addresses the Service gives up become retiring,
 * not free. On failure the table is unchanged: a Service keeps what it held.
 */
export function assign(view: AllocatorView, claim: Claim): Decision {
  const decision = decide(view, claim);
  const old = view.table.holding(claim.id);
  if (decision.ok) view.table.set(holdingOf(claim, decision.addresses, [...(old?.addresses ?? []), ...(old?.retiring ?? [])]));
  return decision;
}

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

/** Frees what no Service shows any more: holdings of gone Services, retiring addresses shown nowhere. Returns how many holdings changed. */
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

function restoreActive(view: AllocatorView, item: Evidence, remarks: string[]): IP[] {
  const kept: IP[] = [];
  for (const ip of item.active) {
    if (!poolOf(view.pools, ip) || kept.some((k) => k.family === ip.family)) continue;
    const why = sharingConflict(view.table.holders(addressKey(ip), item.traits.id), item.traits, view.sharingAnnotation);
    if (why === undefined) kept.push(ip);
    else remarks.push(`${item.traits.service}: not restoring ${formatIP(ip)}: ${why}`);
  }
  return kept;
}

/**
 * Rebuilds the table from what Services show (invariant 2), in the order given (oldest Service first, so a
 * conflict left by hand keeps the older owner). Active addresses first, then retiring ones, so a stale
 * status never takes an address from its current holder. Addresses outside every pool are not ours.
 * Returns a line per address that could not be restored.
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
