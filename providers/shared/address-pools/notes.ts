/**
 * What a sync tells about a Service's addresses (pure): the Warning events (every move, every refusal to
 * move, every remark) and the status condition that stays False while an address is kept outside the
 * pools that serve the Service.
 */
import type { ServiceWarning } from "../../../src/cloud/provider.ts";
import type { Condition, Service } from "../../../src/kube/objects.ts";
import { formatIP, type IP } from "../../../src/net/ip.ts";
import { rfc3339 } from "../../../src/util/clock.ts";
import type { Decision, Note } from "./allocator.ts";

export const REASON_MOVED = "LoadBalancerAddressMoved";
export const REASON_KEPT = "LoadBalancerAddressKept";
export const REASON_REMARK = "LoadBalancerAddress";

const REASONS: Readonly<Record<Note["kind"], string>> = {
  moved: REASON_MOVED,
  kept: REASON_KEPT,
  remark: REASON_REMARK,
};

/**
 * The safety net behind invariant 4: an address the Service showed before this sync that the decision
 * replaced without a `moved` note (its holding was lost, e.g. to a sharing conflict found on restore)
 * still gets one. So no path can move an address without a Warning.
 */
export function movesNotAnnounced(shown: readonly IP[], decision: Decision & { ok: true }): Note[] {
  const announced = decision.notes.filter((n) => n.kind === "moved").map((n) => n.message);
  return shown.flatMap((old): Note[] => {
    const now = decision.addresses.find((ip) => ip.family === old.family);
    if (now?.value === old.value || announced.some((m) => m.includes(`from ${formatIP(old)}`))) return [];
    const message = now ? `moved from ${formatIP(old)} to ${formatIP(now)}` : `gave up ${formatIP(old)}`;
    return [{ kind: "moved", message: `${message}: the address could not be kept` }];
  });
}

export function warningsOf(remarks: readonly string[], notes: readonly Note[]): ServiceWarning[] {
  return [
    ...remarks.map((message) => ({ reason: REASON_REMARK, message })),
    ...notes.map((n) => ({ reason: REASONS[n.kind], message: n.message })),
  ];
}

type Wanted = Pick<Condition, "status" | "reason" | "message">;

const IN_POOLS: Wanted = {
  status: "True",
  reason: "InPools",
  message: "every address is in an address pool that serves the Service",
};

function wantedCondition(
  kept: readonly string[],
  guarded: boolean,
  current: Condition | undefined,
): Wanted | undefined {
  if (kept.length > 0)
    return { status: "False", reason: guarded ? "MoveRefused" : "OutsidePools", message: kept.join("; ") };
  return current?.status === "False" ? IN_POOLS : undefined;
}

const sameCondition = (a: Wanted, b: Wanted): boolean =>
  a.status === b.status && a.reason === b.reason && a.message === b.message;

/** What a sync found about one Service's addresses. */
export interface Flagging {
  readonly type: string;
  readonly notes: readonly Note[];
  /** A move guard is up: reasons say MoveRefused. */
  readonly guarded: boolean;
  readonly now: Date;
}

/**
 * The condition to write, or undefined when the Service already shows the right one. False while an
 * address is kept (reason `MoveRefused` when a move guard is up, else `OutsidePools`); back to True
 * (`InPools`) once nothing is kept; never written for a Service that was never flagged.
 */
export function conditionWrite(service: Service, f: Flagging): Condition | undefined {
  const current = service.status?.conditions?.find((c) => c.type === f.type);
  const kept = f.notes.filter((n) => n.kind === "kept").map((n) => n.message);
  const wanted = wantedCondition(kept, f.guarded, current);
  if (!wanted || (current && sameCondition(current, wanted))) return undefined;
  const transition = current?.status === wanted.status ? current.lastTransitionTime : rfc3339(f.now.getTime());
  return { type: f.type, ...wanted, lastTransitionTime: transition, observedGeneration: service.metadata.generation };
}
