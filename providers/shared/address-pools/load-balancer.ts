/**
 * LoadBalancer over address pools: there is no load balancer to build, only an address to choose (the
 * allocator), to write where announcers read it (the announce annotations) and to report as the Service's
 * ingress. Announcers (kube-vip, MetalLB-style speakers) pick the nodes, so `updateLoadBalancer` has
 * nothing to do. See allocator.ts for the invariants that keep addresses unique and never move one
 * silently; every move and every refusal to move reaches the Service as a Warning event, a refusal also
 * as the condition `<prefix>/AddressesInPools=False`.
 */
import type {
  CallOutcome,
  EnsuredLoadBalancer,
  LoadBalancer,
  LoadBalancerChange,
  ProviderInit,
} from "../../../src/cloud/provider.ts";
import type { KubeApi } from "../../../src/kube/api.ts";
import type { LoadBalancerStatus, Service } from "../../../src/kube/objects.ts";
import { isNotFound } from "../../../src/kube/transport.ts";
import { parseIP } from "../../../src/net/ip.ts";
import { errorMessage } from "../../../src/kube/worker.ts";
import type { Logger } from "../../../src/log/logger.ts";
import {
  AllocationTable,
  assign,
  sharingBlockedByRetiring,
  type AllocatorView,
  type Decision,
  type Note,
} from "./allocator.ts";
import { patchServiceAnnotations, patchServiceCondition, ServiceReplacedError } from "./api.ts";
import {
  allocatedFrom,
  claimFor,
  claimId,
  evidenceOf,
  ingressOf,
  serviceKey,
  shareTraitsOf,
  shownAddresses,
  statusAddresses,
  targetOf,
  type Claim,
  type ClaimContext,
} from "./claim.ts";
import { createNamespaceLabels, type NamespaceLabels } from "./namespace-labels.ts";
import { conditionWrite, movesNotAnnounced, warningsOf } from "./notes.ts";
import { followReleases } from "./releases.ts";
import { inServingPool, judgingPools, poolContains, poolNameOf, type Pool } from "./pools.ts";
import type { LoadBalancerSettings } from "./pools-config.ts";
import { reconcile, restore, retire, settle, type Evidence } from "./restore.ts";

export interface LoadBalancerDeps {
  /** The current settings; a live edit of the cloud-config swaps them. */
  readonly settings: () => LoadBalancerSettings;
  /** The pools in force now: the file's, or the AddressPool objects'. */
  readonly pools: () => readonly Pool[];
  /** Set while configuration-driven moves are refused (replicas disagree): the reason. */
  readonly moveGuard?: () => string | undefined;
  readonly logger: Logger;
  readonly observeCall: (operation: string, seconds: number, outcome: CallOutcome) => void;
  readonly now?: () => Date;
}

export interface PoolLoadBalancer {
  readonly loadBalancer: LoadBalancer;
  /** Rebuilds the allocation table once the Service cache has synced; every call waits for that. */
  initialize(init: ProviderInit): void;
  /** Resolves once the table is rebuilt (rejects if the manager stopped first). */
  ready(): Promise<ProviderInit>;
  readonly table: AllocationTable;
  /** The allocator's view now: the table, the pools in force, the move guard. */
  view(): AllocatorView;
  /**
   * Frees what the synced cache shows nobody holding any more (Services deleted since); a no-op until the
   * table is rebuilt. Returns how many holdings changed.
   */
  forgetGone(): number;
  /** Tells the `onChange` listeners (the service controller) that Services may be served differently now. */
  notify(change: LoadBalancerChange): void;
}

/** Upstream `DefaultLoadBalancerName`: "a" + the UID without dashes, at most 32 characters. */
const loadBalancerName = (service: Service): string =>
  `a${(service.metadata.uid ?? "").replaceAll("-", "")}`.slice(0, 32);

const oldestFirst = (a: Service, b: Service): number =>
  (a.metadata.creationTimestamp ?? "").localeCompare(b.metadata.creationTimestamp ?? "") ||
  serviceKey(a).localeCompare(serviceKey(b));

/** What a claim is read with; `labels` is the Namespace cache, once initialised. */
interface ClaimSources {
  readonly deps: LoadBalancerDeps;
  readonly table: AllocationTable;
  readonly context: () => ClaimContext;
  readonly labels?: NamespaceLabels;
}

/**
 * The claim, with its Namespace's labels read once the Namespace cache has listed when a pool that may
 * judge this Service selects namespaces by label; a Service no such pool judges never waits for that.
 */
async function labelledClaim(
  service: Service,
  from: ClaimSources,
  signal?: AbortSignal,
): Promise<{ claim: Claim; remarks: readonly string[] }> {
  const settings = from.deps.settings();
  const claimed = claimFor(service, settings, from.context());
  if (!claimed.ok) throw new Error(claimed.problem);
  const { claim, remarks } = claimed;
  const held = from.table.holding(claim.id)?.addresses ?? [];
  const addresses = [...held, ...shownAddresses(service, settings)].flatMap((a) => parseIP(a) ?? []);
  const judging = judgingPools(from.deps.pools(), {
    namespace: claim.target.namespace,
    serviceLabels: claim.target.serviceLabels,
    pool: claim.pool,
    addresses: [...claim.requested, ...addresses],
  });
  if (judging.length === 0) return { claim, remarks };
  await from.labels?.ready(judging, signal);
  return { claim: { ...claim, target: targetOf(service, from.context()) }, remarks };
}

/** The pools selecting namespaces by label that hold an address some Service shows. */
function poolsShowing(pools: readonly Pool[], services: readonly Service[], settings: LoadBalancerSettings): Pool[] {
  const shown = services.flatMap((s) => [...shownAddresses(s, settings)].flatMap((a) => parseIP(a) ?? []));
  return pools.filter((p) => p.namespaceSelectors.length > 0 && shown.some((ip) => poolContains(p, ip)));
}

export function createPoolLoadBalancer(deps: LoadBalancerDeps): PoolLoadBalancer {
  const listeners = new Set<(change: LoadBalancerChange) => void>();
  const notify = (change: LoadBalancerChange): void => listeners.forEach((listener) => listener(change));
  // An address let go of: a Service that found none may find one now (MetalLB retries all after a delete).
  const table = new AllocationTable({ onFreed: () => notify({ waitingOnly: true }) });
  let session: { ready: Promise<void>; init: ProviderInit; namespaces: NamespaceLabels } | undefined;
  let rebuiltOnce = false;
  const view = (): AllocatorView => {
    const s = deps.settings();
    return { table, pools: deps.pools(), sharingAnnotation: s.sharingAnnotation, moveGuard: deps.moveGuard?.() };
  };
  const claimContext = (): ClaimContext => ({
    pools: deps.pools(),
    namespaceLabels: (ns) => session?.namespaces.labels(ns) ?? {},
  });

  async function ready(): Promise<ProviderInit> {
    if (!session)
      throw new Error("the address-pool load balancer is not initialised: it runs on the leader, after initialize");
    await session.ready;
    return session.init;
  }

  function rebuild(services: readonly Service[]): void {
    const settings = deps.settings();
    const evidence: Evidence[] = [...services].sort(oldestFirst).map((s) => ({
      traits: { ...shareTraitsOf(s, settings), id: claimId(s) },
      ...evidenceOf(s, settings, inServingPool(deps.pools(), targetOf(s, claimContext()))),
    }));
    for (const line of restore(view(), evidence)) deps.logger.warn(line);
    const outside = table.holdings().filter((h) => h.addresses.some((a) => poolNameOf(deps.pools(), a) === undefined));
    const kept = outside.length > 0 ? `; ${outside.length} of them hold addresses outside every pool, kept` : "";
    deps.logger.info(`restored the load-balancer addresses of ${table.size} Service(s) from the cluster${kept}`);
  }

  /** Frees what the cache shows nobody holding any more; run when a pool looks full. */
  function reconcileWithCache(init: ProviderInit): number {
    const settings = deps.settings();
    return reconcile(table, (holding) => {
      const service = init.services.get(holding.service);
      return service && claimId(service) === holding.id ? shownAddresses(service, settings) : undefined;
    });
  }

  /** Synchronous from decision to record: no other sync can slip in between (invariant 1). */
  function allocate(init: ProviderInit, claim: Claim): Decision & { ok: true } {
    if (sharingBlockedByRetiring(view(), claim)) reconcileWithCache(init);
    let decision = assign(view(), claim);
    if (!decision.ok && reconcileWithCache(init) > 0) decision = assign(view(), claim);
    if (!decision.ok) throw new Error(decision.problem);
    return decision;
  }

  async function timed(operation: string, call: () => Promise<void>): Promise<void> {
    const started = performance.now();
    const seconds = (): number => (performance.now() - started) / 1000;
    try {
      await call();
      deps.observeCall(operation, seconds(), "success");
    } catch (error) {
      deps.observeCall(operation, seconds(), "error");
      throw error;
    }
  }

  /** The announce annotations and the origin pools, written in one patch when any differs. */
  async function announce(
    kube: KubeApi,
    service: Service,
    addresses: readonly string[],
    signal?: AbortSignal,
  ): Promise<void> {
    const settings = deps.settings();
    const value = addresses.join(",");
    const recorded = allocatedFrom(service, settings);
    const origins = addresses.map((a) => poolNameOf(deps.pools(), a) ?? recorded.get(a) ?? "").join(",");
    const wanted: Record<string, string> = Object.fromEntries(settings.announceAnnotations.map((key) => [key, value]));
    if (origins.replaceAll(",", "") !== "") wanted[settings.keys.allocatedFrom] = origins;
    const stale = Object.entries(wanted).filter(([key, v]) => service.metadata.annotations?.[key] !== v);
    if (stale.length === 0) return;
    await timed("AnnounceAddresses", () => patchServiceAnnotations(kube, service, Object.fromEntries(stale), signal));
  }

  /** Removes the announce annotations; a Service already gone or re-created under a new UID is left alone. */
  async function withdraw(kube: KubeApi, service: Service, signal?: AbortSignal): Promise<void> {
    const settings = deps.settings();
    const keys = [...settings.announceAnnotations, settings.keys.allocatedFrom];
    const shown = keys.some((key) => service.metadata.annotations?.[key] !== undefined);
    // The cached copy may predate our own annotation write, so a holding counts as "shown" too.
    if (!shown && !table.holding(claimId(service))) return;
    const removal = Object.fromEntries(keys.map((key) => [key, null]));
    await timed("WithdrawAddresses", () => patchServiceAnnotations(kube, service, removal, signal)).catch(
      (error: unknown) => {
        if (!isNotFound(error) && !(error instanceof ServiceReplacedError)) throw error;
      },
    );
  }

  async function flag(kube: KubeApi, service: Service, notes: readonly Note[], signal?: AbortSignal): Promise<void> {
    const flagging = {
      type: deps.settings().keys.conditionType,
      notes,
      guarded: view().moveGuard !== undefined,
      now: deps.now?.() ?? new Date(),
    };
    const write = conditionWrite(service, flagging);
    if (write) await timed("FlagAddresses", () => patchServiceCondition(kube, service, write, signal));
  }

  function statusOf(service: Service): LoadBalancerStatus {
    const holding = table.holding(claimId(service));
    return holding && holding.addresses.length > 0 ? ingressOf(holding.addresses) : {};
  }

  const loadBalancer: LoadBalancer = {
    allocatesInProcess: true,
    // A pool's serviceSelectors match the Service's labels: relabelling may give it a pool, or take it away.
    readsServiceLabels: true,
    getLoadBalancerName: (_clusterName, service) => loadBalancerName(service),
    async getLoadBalancer(_clusterName, service) {
      await ready();
      const status = statusOf(service);
      const announced = deps
        .settings()
        .announceAnnotations.some((key) => service.metadata.annotations?.[key] !== undefined);
      return { exists: (status.ingress?.length ?? 0) > 0 || announced, status };
    },
    async ensureLoadBalancer(_clusterName, service, _nodes, signal): Promise<EnsuredLoadBalancer> {
      const init = await ready();
      const claimed = await labelledClaim(
        service,
        { deps, table, context: claimContext, labels: session?.namespaces },
        signal,
      );
      const decision = allocate(init, claimed.claim);
      const addresses = table.holding(claimed.claim.id)?.addresses ?? [];
      const settings = deps.settings();
      const notes = [...decision.notes, ...movesNotAnnounced(evidenceOf(service, settings).active, decision)];
      await announce(init.kube, service, addresses, signal);
      await flag(init.kube, service, notes, signal);
      const shownInStatus = statusAddresses(service);
      settle(table, claimed.claim.id, (address) => shownInStatus.has(address));
      return { status: ingressOf(addresses), warnings: warningsOf(claimed.remarks, notes) };
    },
    async updateLoadBalancer() {
      await ready();
    },
    async ensureLoadBalancerDeleted(_clusterName, service, signal) {
      const init = await ready();
      await withdraw(init.kube, service, signal);
      const shownInStatus = statusAddresses(service);
      retire(table, claimId(service), (address) => shownInStatus.has(address));
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };

  const forgetGone = (): number => (session && rebuiltOnce ? reconcileWithCache(session.init) : 0);

  /**
   * Before the first decision: the caches, then, if in time, the Namespace labels of pools that select on
   * them and hold an address some Service shows (the only ones a restore judges by labels).
   */
  async function rebuildWhenSynced(init: ProviderInit, namespaces: NamespaceLabels): Promise<void> {
    if (!(await init.waitForSync(init.signal))) throw new Error("stopped before the Service cache synced");
    const judging = poolsShowing(deps.pools(), init.services.list(), deps.settings());
    await namespaces.ready(judging, init.signal).catch((error: unknown) => {
      if (init.signal.aborted) throw error;
      deps.logger.warn(`restoring addresses without Namespace labels: ${errorMessage(error)}`);
    });
    rebuild(init.services.list());
    rebuiltOnce = true;
  }

  return {
    loadBalancer,
    table,
    ready,
    view,
    forgetGone,
    notify,
    initialize(init) {
      const namespaces = createNamespaceLabels(init, notify);
      const rebuilt = rebuildWhenSynced(init, namespaces);
      void rebuilt.catch(() => undefined);
      session = { ready: rebuilt, init, namespaces };
      followReleases(init, { table, settings: deps.settings, forgetGone });
    },
  };
}
