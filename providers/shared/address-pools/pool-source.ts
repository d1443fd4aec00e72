/**
 * Where a provider's address pools come from, as one piece both pool-backed providers use: the
 * cloud-config file's pools (`source: file`), or AddressPool objects in the cluster (`source: cluster`).
 * With cluster pools the leader watches the objects, the load balancer rebuilds its table only once both
 * the Service cache and the pools are synced (so a restart never judges addresses against no pools), and
 * every pool's status shows its used and free counts. A `/readyz` check says while the pools are unread.
 */
import type { CallOutcome, ProviderInit } from "../../../src/cloud/provider.ts";
import type { Logger } from "../../../src/log/logger.ts";
import { createClusterPools, type ClusterPools } from "./cluster-pools.ts";
import { createConfigGuard, poolsHash, type ConfigGuard } from "./config-guard.ts";
import { createPoolLoadBalancer, type PoolLoadBalancer } from "./load-balancer.ts";
import { samePools, type Pool } from "./pools.ts";
import type { LoadBalancerSettings } from "./pools-config.ts";
import { createStatusWriter, type StatusWriter } from "./status-writer.ts";

const STATUS_RESYNC_MS = 10_000;

export interface PoolSourceDeps {
  /** The settings now; a live edit of the cloud-config swaps them (the source is fixed at start). */
  readonly settings: () => LoadBalancerSettings;
  /** Set while configuration-driven moves are refused: the reason. */
  readonly moveGuard?: () => string | undefined;
  readonly logger: Logger;
  readonly observeCall: (operation: string, seconds: number, outcome: CallOutcome) => void;
  /** Sets `cloudprovider_configuration_drift` (the provider context's `observeConfigurationDrift`). */
  readonly observeDrift?: (drifting: boolean) => void;
  /** How long the status writer gathers changes before one pass. */
  readonly statusDelayMs?: number;
}

export interface SourcedLoadBalancer {
  readonly lb: PoolLoadBalancer;
  /** The pools in force now. */
  pools(): readonly Pool[];
  /** On the leader: starts watching the pools (cluster source), then the load balancer's rebuild. */
  initialize(init: ProviderInit): void;
  /**
   * The provider calls this after a live edit of its cloud-config swapped the settings: when the file's
   * pools differ, every Service is synced again (as after an AddressPool edit).
   */
  settingsChanged(): void;
}

interface ClusterSide {
  readonly pools: ClusterPools;
  readonly status: StatusWriter;
}

/** Names and ranges: equal for pool sets that hand out the same addresses the same way. */
const describe = (pools: readonly Pool[]): string =>
  pools.map((p) => `${p.name}[${p.ranges.map((r) => `${r.first}-${r.last}`).join(",")}]`).join(" ");
const names = (pools: readonly Pool[]): string => pools.map((p) => p.name).join(", ") || "none";

function startCluster(init: ProviderInit, deps: PoolSourceDeps, lb: () => PoolLoadBalancer): ClusterSide {
  const logger = deps.logger;
  const status = createStatusWriter({
    kube: init.kube,
    read: () => pools.read(),
    // Services deleted since leave the table first, so the counts show their addresses free.
    used: () => {
      lb().forgetGone();
      return lb().table.addresses();
    },
    logger,
    delayMs: deps.statusDelayMs,
  });
  const pools = createClusterPools({
    kube: init.kube,
    logger,
    onChange: (before, after) => {
      if (describe(before) !== describe(after))
        logger.info(`address pools in force: ${names(after)} (were: ${names(before)})`);
      // Every Service again, as MetalLB after a pool change: a waiting one may fit now, a served one may
      // no longer be offered its address. A status write (our own, after each sync) changes no pool.
      if (!samePools(before, after)) lb().notify({});
      status.schedule();
    },
  });
  init.addReadinessCheck?.("address-pools", () =>
    pools.synced ? undefined : "AddressPool objects not read yet (is the CRD installed?)",
  );
  // A deleted Service leaves the cache only once its finalizer is gone, after the last sync: a periodic
  // pass (writing only what differs) counts its addresses free.
  const resync = setInterval(() => status.schedule(), STATUS_RESYNC_MS);
  void pools.run(init.signal).finally(() => {
    clearInterval(resync);
    status.stop();
  });
  void pools.waitForSync(init.signal).then((synced) => {
    if (!synced) return;
    logger.info(`address pools from AddressPool objects: ${names(pools.pools())}`);
    status.schedule();
  });
  return { pools, status };
}

/**
 * File pools under leader election: the pools may differ between replicas, so the leader compares them
 * with the previous leader's (recorded on the Lease) before it rebuilds its table.
 */
function startFileGuard(init: ProviderInit, deps: PoolSourceDeps): ConfigGuard | undefined {
  const lease = init.replica?.lease;
  if (!lease) return undefined;
  const guard = createConfigGuard({
    kube: init.kube,
    lease,
    hash: () => poolsHash(deps.settings().pools),
    logger: deps.logger,
    observeDrift: deps.observeDrift,
  });
  init.addReadinessCheck?.("address-pools-config", () => guard.reason());
  return guard;
}

/** The caches' sync, then the first comparison: the table is rebuilt under the right guard. */
function guardedSync(init: ProviderInit, guard: ConfigGuard): ProviderInit["waitForSync"] {
  let first: Promise<void> | undefined;
  return async (signal) => {
    first ??= guard.start(init.signal);
    await first;
    return init.waitForSync(signal);
  };
}

export function createSourcedLoadBalancer(deps: PoolSourceDeps): SourcedLoadBalancer {
  let cluster: ClusterSide | undefined;
  const fromCluster = deps.settings().source === "cluster";
  const pools = (): readonly Pool[] => (fromCluster ? (cluster?.pools.pools() ?? []) : deps.settings().pools);
  let guard: ConfigGuard | undefined;
  const inner = createPoolLoadBalancer({
    settings: deps.settings,
    pools,
    moveGuard: () => deps.moveGuard?.() ?? guard?.reason(),
    logger: deps.logger,
    observeCall: deps.observeCall,
  });
  const lb: PoolLoadBalancer = {
    ...inner,
    loadBalancer: {
      ...inner.loadBalancer,
      async ensureLoadBalancer(clusterName, service, nodes, signal) {
        try {
          return await inner.loadBalancer.ensureLoadBalancer(clusterName, service, nodes, signal);
        } finally {
          cluster?.status.schedule();
        }
      },
      async ensureLoadBalancerDeleted(clusterName, service, signal) {
        await inner.loadBalancer.ensureLoadBalancerDeleted(clusterName, service, signal);
        cluster?.status.schedule();
      },
    },
  };
  let filePools = deps.settings().pools;
  return {
    lb,
    pools,
    settingsChanged() {
      const now = deps.settings().pools;
      if (fromCluster || samePools(filePools, now)) return;
      filePools = now;
      inner.notify({});
    },
    initialize(init) {
      if (!fromCluster) {
        guard = startFileGuard(init, deps);
        return inner.initialize(guard ? { ...init, waitForSync: guardedSync(init, guard) } : init);
      }
      const side = startCluster(init, deps, () => lb);
      cluster = side;
      const waitForSync = async (signal: AbortSignal): Promise<boolean> =>
        (await init.waitForSync(signal)) && (await side.pools.waitForSync(signal));
      inner.initialize({ ...init, waitForSync });
    },
  };
}
