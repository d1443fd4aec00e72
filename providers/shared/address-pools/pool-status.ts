/**
 * AddressPool status (pure): used and free addresses per family, and the `Valid` condition. "Used" counts
 * every address of the pool some Service holds or still shows; "free" is what is left to hand out
 * (avoided .0/.255 addresses are neither).
 */
import type { Condition } from "../../../src/kube/objects.ts";
import { parseIP } from "../../../src/net/ip.ts";
import type { ReadPool } from "./cluster-pools.ts";
import { poolContains, type AddressRange, type Pool } from "./pools.ts";

export interface PoolStatus {
  observedGeneration?: number;
  used: number;
  free: string;
  usedIPv4: number;
  freeIPv4: number;
  usedIPv6: number;
  freeIPv6: string;
  /**
   * The spec in force, as JSON (null: none; a merge patch then removes it). A new leader reads it back as
   * the spec to keep when an edit cannot apply, so it keeps what the running leader kept.
   */
  appliedSpec: string | null;
  conditions: Condition[];
}

/** IPv4 values in [0, n] whose last octet is 0 or 255. */
const buggyUpTo = (n: bigint): bigint => (n < 0n ? 0n : (n / 256n) * 2n + 1n + (n % 256n === 255n ? 1n : 0n));

function size(range: AddressRange, avoidBuggy: boolean): bigint {
  const all = range.last - range.first + 1n;
  return avoidBuggy && range.family === 4 ? all - (buggyUpTo(range.last) - buggyUpTo(range.first - 1n)) : all;
}

function capacity(pool: Pool, family: 4 | 6): bigint {
  return pool.ranges.filter((r) => r.family === family).reduce((sum, r) => sum + size(r, pool.avoidBuggyIPs), 0n);
}

function usedIn(pool: Pool | undefined, used: Iterable<string>): { v4: number; v6: number } {
  let v4 = 0;
  let v6 = 0;
  if (!pool) return { v4, v6 };
  for (const address of used) {
    const ip = parseIP(address);
    if (!ip || !poolContains(pool, ip)) continue;
    if (ip.family === 4) v4++;
    else v6++;
  }
  return { v4, v6 };
}

function validCondition(read: ReadPool, previous: Condition | undefined, now: string): Condition {
  const ok = read.problems.length === 0;
  const status = ok ? ("True" as const) : ("False" as const);
  const message = ok ? "the pool offers its addresses" : read.problems.join("; ");
  const lastTransitionTime = previous?.status === status ? previous.lastTransitionTime : now;
  return {
    type: "Valid",
    status,
    reason: ok ? "Valid" : read.pool ? "EditNotApplied" : "Invalid",
    message,
    lastTransitionTime,
    observedGeneration: read.object.metadata.generation,
  };
}

/** The status an AddressPool should show, given every address in use. */
export function poolStatus(read: ReadPool, used: Iterable<string>, now: string): PoolStatus {
  const previous = (read.object.status?.conditions as Condition[] | undefined)?.find((c) => c.type === "Valid");
  const counts = usedIn(read.pool, used);
  const free4 = read.pool ? capacity(read.pool, 4) - BigInt(counts.v4) : 0n;
  const free6 = read.pool ? capacity(read.pool, 6) - BigInt(counts.v6) : 0n;
  return {
    observedGeneration: read.object.metadata.generation,
    used: counts.v4 + counts.v6,
    free: (free4 + free6).toString(),
    usedIPv4: counts.v4,
    freeIPv4: Number(free4),
    usedIPv6: counts.v6,
    freeIPv6: free6.toString(),
    appliedSpec: read.applied ?? null,
    conditions: [validCondition(read, previous, now)],
  };
}

/** Whether the object already shows `status` (conditions compared without their timestamps' churn). */
export function showsStatus(read: ReadPool, status: PoolStatus): boolean {
  const shown = read.object.status ?? {};
  const { conditions, ...counts } = status;
  const sameCounts = Object.entries(counts).every(([k, v]) => (shown[k] ?? null) === (v ?? null));
  const shownConditions = (shown.conditions as Condition[] | undefined) ?? [];
  const sameConditions = conditions.every((c) =>
    shownConditions.some(
      (s) =>
        s.type === c.type &&
        s.status === c.status &&
        s.message === c.message &&
        s.observedGeneration === c.observedGeneration,
    ),
  );
  return sameCounts && sameConditions;
}
