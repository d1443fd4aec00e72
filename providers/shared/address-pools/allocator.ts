/**
 * The allocator's decisions: pure functions over the allocation table, plus `assign`, the one synchronous
 * step that decides and records. Restoring the table after a restart is restore.ts.
 *
 * Invariants (why no address is ever handed out twice, and none moves silently):
 * 1. An address is free only if the table says so. `assign` decides and records in one synchronous step,
 *    so two concurrent `ensureLoadBalancer` calls (JavaScript runs one at a time between awaits) see each
 *    other's results. The caller writes an address anywhere (annotation, then status) only after recording.
 * 2. Before the first decision the table is rebuilt from what Services show (restore.ts), every address
 *    a Service shows included, in a pool or not. So every address visible on the cluster is taken before
 *    anything is handed out.
 * 3. An address leaves the table only when no Service object shows it any more (restore.ts `reconcile`).
 * 4. A Service keeps the address it holds. It moves only when the Service itself asks for something else
 *    (a requested address, a pool, a sharing key that no longer fits), or when its address is no longer
 *    offered to it by the pools (outside every pool, or in a pool that stopped serving it) and the
 *    operator allowed moves (the Service's allow annotation, or the origin pool's `allowAddressMoves`)
 *    and no move guard is up. Every move is a `moved` note, every refusal a `kept` note: the caller turns
 *    both into Warning events.
 * 5. Sharing is the only way two Services meet on one address, and only under `sharingConflict`'s rules;
 *    a retiring address is shared with nobody new: the members that still hold it keep it.
 */
import { formatIP, parseIP, type IP, type IPFamily } from "../../../src/net/ip.ts";
import { AllocationTable, type Holding } from "./allocation-table.ts";
import type { Claim } from "./claim.ts";
import {
  addressKey,
  candidatePools,
  familyName,
  isBuggyIP,
  notServedBecause,
  poolContains,
  poolOf,
  serves,
  type Pool,
} from "./pools.ts";
import { sharingConflict, type ShareTraits, type SharingRules } from "./sharing.ts";

export { AllocationTable, type Holding } from "./allocation-table.ts";

export interface AllocatorView {
  readonly table: AllocationTable;
  readonly pools: readonly Pool[];
  /** The sharing annotation's key, for messages. */
  readonly sharingAnnotation: string;
  /** Set while moves driven by configuration are refused (replicas disagree): the reason, for messages. */
  readonly moveGuard?: string;
}

/** Something the caller reports on the Service as a Warning event (and, for `kept`, a condition). */
export interface Note {
  readonly kind: "moved" | "kept" | "remark";
  readonly message: string;
}

export type Decision =
  | { readonly ok: true; readonly addresses: readonly IP[]; readonly notes: readonly Note[] }
  | { readonly ok: false; readonly problem: string };

type Choice = { readonly ip: IP; readonly note?: Note } | { readonly problem: string };

/** Why an address does not fit a claim: the configuration's doing, or the Service's own. */
interface Misfit {
  readonly cause: "configuration" | "service";
  readonly text: string;
}

export function sharingRules(view: AllocatorView, ip: IP): SharingRules {
  return {
    annotation: view.sharingAnnotation,
    implicit: ip.family === 4 && (poolOf(view.pools, ip)?.implicitSharing ?? false),
  };
}

/** Why `claim` may not have `ip`, phrased to follow the address: "… is outside every address pool". */
function misfit(view: AllocatorView, claim: Claim, ip: IP): Misfit | undefined {
  const pool = poolOf(view.pools, ip);
  if (!pool) return { cause: "configuration", text: "is not in any address pool" };
  if (!serves(pool, claim.target))
    return {
      cause: "configuration",
      text: `is in address pool ${pool.name}, which ${notServedBecause(pool, claim.target)}`,
    };
  if (claim.pool !== undefined && pool.name !== claim.pool) {
    return { cause: "service", text: `is in address pool ${pool.name}, but the Service asks for pool ${claim.pool}` };
  }
  const why = sharingConflict(sharersOf(view, claim, ip), claim, sharingRules(view, ip));
  return why === undefined ? undefined : { cause: "service", text: `is not available: ${why}` };
}

/**
 * Those `claim` must be able to share `ip` with. A member that holds the address keeps it while another
 * gives it up: the leaver's ports leave the group, as MetalLB's Unassign drops only the leaver's. Only a
 * Service that does not hold the address yet waits for the leaver (`sharingBlockedByRetiring`).
 */
function sharersOf(view: AllocatorView, claim: Claim, ip: IP): ShareTraits[] {
  const address = addressKey(ip);
  const holders = view.table.holders(address, claim.id);
  const holds = view.table.holding(claim.id)?.addresses.includes(address) ?? false;
  return holds ? holders.filter((h) => !h.givingUp) : holders;
}

const mayShareIn = (claim: Claim, pool: Pool, family: IPFamily): boolean =>
  claim.key !== undefined || (pool.implicitSharing && family === 4);

/** The addresses of `family` in `pool` in use by others than `claim`, with those others. */
function* usedIn(view: AllocatorView, claim: Claim, pool: Pool, family: IPFamily): Generator<[IP, ShareTraits[]]> {
  for (const address of view.table.addresses()) {
    const ip = parseIP(address);
    if (!ip || ip.family !== family || !poolContains(pool, ip)) continue;
    const others = view.table.holders(address, claim.id);
    if (others.length > 0) yield [ip, others];
  }
}

/** An address in `pool` already used only by Services this claim may share with. */
function shareable(view: AllocatorView, claim: Claim, pool: Pool, family: IPFamily): IP | undefined {
  if (!mayShareIn(claim, pool, family)) return undefined;
  for (const [ip, others] of usedIn(view, claim, pool, family))
    if (sharingConflict(others, claim, sharingRules(view, ip)) === undefined) return ip;
  return undefined;
}

/**
 * Whether `claim` would share an address but for holders giving it up: such a holder may be a Service
 * deleted since (its re-created twin is this claim), which only the Service cache can tell. The caller then
 * frees what the cache shows nobody holding and decides again, so a re-created member of a sharing group
 * gets its group's address back. Families the claim already holds are not looked at.
 */
export function sharingBlockedByRetiring(view: AllocatorView, claim: Claim): boolean {
  const held = view.table.holding(claim.id)?.addresses.map((a) => parseIP(a)?.family) ?? [];
  return claim.families.some((family) => {
    if (held.includes(family)) return false;
    const target = { target: claim.target, family, pool: claim.pool };
    return candidatePools(view.pools, target).some((pool) => retiringInTheWay(view, claim, pool, family));
  });
}

function retiringInTheWay(view: AllocatorView, claim: Claim, pool: Pool, family: IPFamily): boolean {
  if (!mayShareIn(claim, pool, family)) return false;
  for (const [ip, others] of usedIn(view, claim, pool, family)) {
    const live = others.filter((h) => !h.givingUp);
    if (live.length === others.length || live.length === 0) continue;
    if (sharingConflict(live, claim, sharingRules(view, ip)) === undefined) return true;
  }
  return false;
}

/** Values of one range in the pool's allocation order. */
function* walk(first: bigint, last: bigint, descending: boolean): Generator<bigint> {
  if (descending) for (let v = last; v >= first; v--) yield v;
  else for (let v = first; v <= last; v++) yield v;
}

/** The first address of `family` in `pool` nobody else holds. Costs O(addresses in use), not O(pool size). */
function firstFree(view: AllocatorView, claim: Claim, pool: Pool, family: IPFamily): IP | undefined {
  const descending = pool.allocationOrder === "Descending";
  const ranges = pool.ranges.filter((r) => r.family === family);
  for (const range of descending ? [...ranges].reverse() : ranges) {
    for (const value of walk(range.first, range.last, descending)) {
      const ip: IP = { family, value };
      if (pool.avoidBuggyIPs && isBuggyIP(ip)) continue;
      if (!view.table.isUsed(addressKey(ip), claim.id)) return ip;
    }
  }
  return undefined;
}

function fresh(view: AllocatorView, claim: Claim, family: IPFamily): Choice {
  const pools = candidatePools(view.pools, { target: claim.target, family, pool: claim.pool });
  const where = claim.pool === undefined ? `namespace ${claim.target.namespace}` : `address pool ${claim.pool}`;
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

/** `203.0.113.7 (pool public)`: an address with the pool it is in, or the pool it was recorded from. */
export function describeAddress(view: AllocatorView, claim: Claim, ip: IP): string {
  const pool = poolOf(view.pools, ip)?.name ?? claim.allocatedFrom.get(addressKey(ip));
  return pool === undefined ? formatIP(ip) : `${formatIP(ip)} (pool ${pool})`;
}

/** Whether a configuration-driven move is allowed, or why not. */
function moveRefusal(view: AllocatorView, claim: Claim, ip: IP): string | undefined {
  if (view.moveGuard !== undefined) return `moves are refused: ${view.moveGuard}`;
  if (claim.allowMove) return undefined;
  const origin = poolOf(view.pools, ip) ?? view.pools.find((p) => p.name === claim.allocatedFrom.get(addressKey(ip)));
  if (origin?.allowAddressMoves) return undefined;
  return "addresses are moved only with the Service annotation allowing it or allowAddressMoves on the pool";
}

/** A move from `move.from` to the choice `move.to`, with its note; a failed choice stays a failure. */
function moved(view: AllocatorView, claim: Claim, move: { from: IP; to: Choice; why: string }): Choice {
  const { from, to, why } = move;
  if (!("ip" in to)) return to;
  const message = `moved from ${describeAddress(view, claim, from)} to ${describeAddress(view, claim, to.ip)}: ${formatIP(from)} ${why}`;
  return { ip: to.ip, note: { kind: "moved", message } };
}

function keepOrMove(view: AllocatorView, claim: Claim, current: IP, family: IPFamily): Choice {
  const why = misfit(view, claim, current);
  if (why === undefined) return { ip: current };
  if (why.cause === "service")
    return moved(view, claim, { from: current, to: fresh(view, claim, family), why: why.text });
  const refusal = moveRefusal(view, claim, current);
  const message = `kept ${describeAddress(view, claim, current)}: it ${why.text}; ${refusal ?? "no other address is free"}`;
  const kept: Choice = { ip: current, note: { kind: "kept", message } };
  if (refusal !== undefined) return kept;
  const next = fresh(view, claim, family);
  return "ip" in next ? moved(view, claim, { from: current, to: next, why: why.text }) : kept;
}

function chooseFor(view: AllocatorView, claim: Claim, family: IPFamily): Choice {
  const held = view.table
    .holding(claim.id)
    ?.addresses.map((a) => parseIP(a))
    .find((ip) => ip?.family === family);
  const requested = claim.requested.find((ip) => ip.family === family);
  if (requested) {
    const why = misfit(view, claim, requested);
    if (why !== undefined) return { problem: `requested address ${formatIP(requested)} ${why.text}` };
    const changed = held !== undefined && held.value !== requested.value;
    const reason = "is not the address the Service requests";
    return changed ? moved(view, claim, { from: held, to: { ip: requested }, why: reason }) : { ip: requested };
  }
  return held ? keepOrMove(view, claim, held, family) : fresh(view, claim, family);
}

/**
 * The addresses `claim` should hold: requested ones if allowed, else the ones it holds (see invariant 4),
 * else an address it may share, else the first free one. Reads the table only. A family without an
 * address fails the claim when the Service requested an address of it or fewer than `claim.required`
 * families got one; otherwise (PreferDualStack, as MetalLB and kube-vip do) it is a remark.
 */
export function decide(view: AllocatorView, claim: Claim): Decision {
  const addresses: IP[] = [];
  const notes: Note[] = [];
  const missing: string[] = [];
  for (const family of claim.families) {
    const choice = chooseFor(view, claim, family);
    if ("ip" in choice) {
      addresses.push(choice.ip);
      if (choice.note) notes.push(choice.note);
      continue;
    }
    if (claim.requested.some((ip) => ip.family === family)) return { ok: false, problem: choice.problem };
    missing.push(choice.problem);
    notes.push({
      kind: "remark",
      message: `no ${familyName(family)} address (the Service only prefers dual-stack): ${choice.problem}`,
    });
  }
  if (addresses.length < claim.required) return { ok: false, problem: missing.join("; ") };
  return { ok: true, addresses, notes };
}

export function holdingOf(
  claim: ShareTraits & { readonly id: string },
  addresses: readonly IP[],
  retiring: readonly string[] = [],
): Holding {
  const active = addresses.map(addressKey);
  const { service, key, backend, ports } = claim;
  return {
    id: claim.id,
    service,
    key,
    backend,
    ports,
    addresses: active,
    retiring: retiring.filter((a) => !active.includes(a)),
  };
}

/**
 * Decide and record in one synchronous step (invariant 1). Addresses the Service gives up become retiring,
 * not free. On failure the table is unchanged: a Service keeps what it held.
 */
export function assign(view: AllocatorView, claim: Claim): Decision {
  const decision = decide(view, claim);
  const old = view.table.holding(claim.id);
  if (decision.ok)
    view.table.set(holdingOf(claim, decision.addresses, [...(old?.addresses ?? []), ...(old?.retiring ?? [])]));
  return decision;
}
