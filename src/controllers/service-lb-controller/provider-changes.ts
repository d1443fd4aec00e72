/**
 * "Sync again" from the provider (`LoadBalancer.onChange`): an address freed, the pools edited, a
 * Namespace's labels changed. The Services a change names are queued at once, ahead of the retry backoff
 * they may be waiting out (up to 300 s), as MetalLB re-processes Services after a delete or a pool
 * change. Changes that come together (one turn of the event loop, or the second after a pass) are merged
 * and answered with one pass over the cache, so each Service is added to the queue once however many
 * changes there were; the queue dedups against what is already queued or in flight.
 */
import type { LoadBalancer, LoadBalancerChange } from "../../cloud/provider.ts";
import type { Lister } from "../../kube/informer.ts";
import { objectKey, type Service } from "../../kube/objects.ts";
import type { WorkQueue } from "../../kube/queue.ts";
import { wantsLoadBalancer } from "./predicates.ts";

/** What a change reaches in a namespace: only the Services still waiting, or all served ones. */
export type Reach = "waiting" | "all";

/** Changes merged: what they reach in every namespace, and in particular namespaces. */
export interface ChangeScope {
  everywhere?: Reach;
  readonly byNamespace: Map<string, Reach>;
}

const wider = (a: Reach | undefined, b: Reach | undefined): Reach | undefined =>
  a === "all" || b === "all" ? "all" : (a ?? b);

/** Adds `change` to `scope` (in place: a burst of changes costs one entry per namespace). */
export function mergeChange(scope: ChangeScope, change: LoadBalancerChange): void {
  const reach: Reach = change.waitingOnly ? "waiting" : "all";
  if (change.namespace === undefined) scope.everywhere = wider(scope.everywhere, reach);
  else scope.byNamespace.set(change.namespace, wider(scope.byNamespace.get(change.namespace), reach) ?? reach);
}

/** What the merged changes reach in `namespace`; undefined: nothing there. */
export const reachIn = (scope: ChangeScope, namespace: string): Reach | undefined =>
  wider(scope.everywhere, scope.byNamespace.get(namespace));

/** As many ingress addresses as IP families (a Service without `ipFamilies` wants one). */
export function fullyServed(service: Service): boolean {
  const ingress = service.status?.loadBalancer?.ingress?.length ?? 0;
  return ingress > 0 && ingress >= (service.spec?.ipFamilies?.length ?? 1);
}

/**
 * Whether a served Service is queued again for what reaches it: never while being deleted (cleanup has
 * its own retries); for "waiting", only when its last sync failed (`failing`) or it is not fully served.
 */
export function needsResync(service: Service, reach: Reach | undefined, failing: boolean): boolean {
  if (reach === undefined || service.metadata.deletionTimestamp !== undefined) return false;
  return reach === "all" || failing || !fullyServed(service);
}

export interface ChangeFollowerDeps {
  readonly balancer: Pick<LoadBalancer, "onChange">;
  readonly services: Lister<Service>;
  readonly queue: Pick<WorkQueue, "add" | "numRequeues">;
  /** `--load-balancer-class`. */
  readonly servedClass: string;
  /** Runs the pass for the changes so far; default: once the current turn of the event loop is over. */
  readonly schedule?: (pass: () => void) => void;
}

/** A pass at most every second: a namespace's Services deleted one by one wake the waiting ones once a second. */
const MIN_PASS_INTERVAL_MS = 1000;

/**
 * Runs each pass once the current turn is over, and no sooner than `MIN_PASS_INTERVAL_MS` after the one
 * before (the changes in between merge into it). `timer` and `now` are injected for tests.
 */
export function pacedSchedule(
  timer: (run: () => void, ms: number) => void = (run, ms) => void setTimeout(run, ms).unref(),
  now: () => number = () => performance.now(),
): (pass: () => void) => void {
  let last = Number.NEGATIVE_INFINITY;
  return (pass) => {
    const wait = Math.max(0, last + MIN_PASS_INTERVAL_MS - now());
    timer(() => {
      last = now();
      pass();
    }, wait);
  };
}

/** Follows the provider's changes until the returned function is called; a no-op without `onChange`. */
export function followProviderChanges(deps: ChangeFollowerDeps): () => void {
  if (!deps.balancer.onChange) return () => undefined;
  const schedule = deps.schedule ?? pacedSchedule();
  let scope: ChangeScope | undefined;
  let stopped = false;
  const pass = (): void => {
    const merged = scope;
    scope = undefined;
    if (!merged || stopped) return;
    for (const service of deps.services.list()) {
      if (!wantsLoadBalancer(service, deps.servedClass)) continue;
      const key = objectKey(service);
      const reach = reachIn(merged, service.metadata.namespace ?? "");
      if (needsResync(service, reach, deps.queue.numRequeues(key) > 0)) deps.queue.add(key);
    }
  };
  const remove = deps.balancer.onChange((change) => {
    if (stopped) return;
    if (!scope) {
      scope = { byNamespace: new Map() };
      schedule(pass);
    }
    mergeChange(scope, change);
  });
  return () => {
    stopped = true;
    remove();
  };
}
