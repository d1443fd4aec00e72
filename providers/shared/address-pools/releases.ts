/**
 * An address a deleted Service held stays taken until no Service object shows it (allocator.ts,
 * invariant 3): the Service leaves the cache only after its last sync, once its finalizer is gone. So the
 * load balancer follows the Service cache: when a Service that holds addresses goes, or stops showing
 * one, what nobody shows any more is freed at once (the table then tells the service controller, which
 * syncs the Services waiting for an address), instead of at the next decision that finds a pool full.
 */
import type { ProviderInit } from "../../../src/cloud/provider.ts";
import type { Service } from "../../../src/kube/objects.ts";
import type { AllocationTable } from "./allocation-table.ts";
import { claimId, shownAddresses } from "./claim.ts";
import type { LoadBalancerSettings } from "./pools-config.ts";

export interface ReleaseDeps {
  readonly table: AllocationTable;
  readonly settings: () => LoadBalancerSettings;
  /** Frees what the cache shows nobody holding (a no-op before the table is rebuilt). */
  readonly forgetGone: () => number;
}

/** Whether `now` (undefined: gone) shows less than `old` did, for a Service the table has a holding of. */
export function showsLess(deps: ReleaseDeps, old: Service, now: Service | undefined): boolean {
  if (!deps.table.holding(claimId(old))) return false;
  if (!now) return true;
  const before = shownAddresses(old, deps.settings());
  const after = shownAddresses(now, deps.settings());
  return [...before].some((address) => !after.has(address));
}

/** On the leader, until `init.signal` aborts; without the manager's Service handlers, nothing to follow. */
export function followReleases(init: ProviderInit, deps: ReleaseDeps): void {
  const remove = init.addServiceHandler?.({
    update: (old, service) => void (showsLess(deps, old, service) && deps.forgetGone()),
    delete: (service) => void (showsLess(deps, service, undefined) && deps.forgetGone()),
  });
  if (remove) init.signal.addEventListener("abort", remove, { once: true });
}
