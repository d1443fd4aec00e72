/**
 * Leader election on a coordination.k8s.io/v1 Lease with client-go's rules: candidates retry every
 * retry period (jittered); a held lease is taken only after `leaseDuration` has passed since this process
 * last *observed* it change (local monotonic clock, so neither skew between hosts nor a step of the wall
 * clock matters); the leader renews every retry period (one PUT of the Lease as it last wrote it; a GET
 * first only after that failed) and gives up when a renewal has not succeeded within the renew deadline.
 * Each acquisition counts one more `leaseTransitions`, a takeover of a released Lease too.
 *
 * Beyond upstream: `release()` hands the Lease back (empty holder, 1 s duration) so a standby takes over
 * within one retry period (kubernetes/kubernetes#119905). As client-go's `release`, it reads the Lease
 * first, writes only while it still names this process, tries again on a conflict, and gives up after the
 * renew deadline. Losing or giving up the Lease records "<identity> stopped leading", as upstream does.
 */
import type { LeaderElectionConfig } from "../config/config.ts";
import { LEASES, type KubeApi } from "../kube/api.ts";
import type { EventRecorder } from "../kube/events.ts";
import type { Lease } from "../kube/objects.ts";
import { isAlreadyExists, isConflict, isNotFound } from "../kube/transport.ts";
import { errorMessage } from "../kube/worker.ts";
import type { Logger } from "../log/logger.ts";
import { jitter, microTime, type Clock } from "../util/clock.ts";
import { watchLease } from "./lease-watch.ts";

export interface LeaderElectorDeps {
  readonly api: KubeApi;
  readonly config: LeaderElectionConfig;
  readonly identity: string;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly recorder: EventRecorder;
  readonly onStatus?: (leading: boolean) => void;
  readonly onSlowPath?: () => void;
}

export interface LeaderElector {
  /** Resolves true once this process leads, false if `signal` aborts first. */
  acquire(signal: AbortSignal): Promise<boolean>;
  /** Renews until `signal` aborts (resolves) or the renew deadline passes (rejects: leadership lost). */
  renew(signal: AbortSignal): Promise<void>;
  /** Gives the Lease up, if this process still holds it. */
  release(): Promise<void>;
  /** Health: a reason when this process leads but has not renewed for lease duration + 20 s. */
  check(): string | undefined;
  readonly leading: boolean;
}

/** Upstream's HealthzAdaptor tolerance past lease expiry. */
const MAX_TOLERABLE_EXPIRED_MS = 20_000;

const JITTER = 1.2;

/** A Lease record's fields (client-go's LeaderElectionRecord, coordinated election's included). */
const RECORD_FIELDS = [
  "holderIdentity",
  "leaseDurationSeconds",
  "acquireTime",
  "renewTime",
  "leaseTransitions",
  "preferredHolder",
  "strategy",
];

/** The record's fields as one text, to tell a change of any of them (client-go compares whole records). */
function recordKey(lease: Lease): string {
  const spec: Record<string, unknown> = lease.spec ?? {};
  return JSON.stringify(RECORD_FIELDS.map((field) => spec[field]));
}

export class LeadershipLostError extends Error {
  override readonly name = "LeadershipLostError";
}

export function createLeaderElector(deps: LeaderElectorDeps): LeaderElector {
  const { api, config, identity, clock } = deps;
  /** Time passed is measured on the monotonic clock; only the Lease's timestamps are wall-clock time. */
  const tick = (): number => clock.elapsed?.() ?? clock.now();
  const target = { namespace: config.resourceNamespace };
  let observed: { holder: string; record: string; at: number; lease?: Lease } | undefined;
  /** The Lease as last read, whoever holds it: the "stopped leading" event's object once ours is gone. */
  let lastRead: Lease | undefined;
  let leading = false;
  let renewedAt = 0;

  const setLeading = (value: boolean): void => {
    leading = value;
    deps.onStatus?.(value);
  };
  setLeading(false); // a standby's status is 0, not absent (client-go's NewLeaderElector)

  /** client-go's record: a renewal keeps the acquire time and transitions, any acquisition counts one more. */
  function record(previous: Lease["spec"], now: string): NonNullable<Lease["spec"]> {
    const renewal = leading && previous?.holderIdentity === identity;
    return {
      holderIdentity: identity,
      leaseDurationSeconds: Math.floor(config.leaseDurationMs / 1000),
      acquireTime: renewal ? previous?.acquireTime : now,
      renewTime: now,
      leaseTransitions: (previous?.leaseTransitions ?? 0) + (renewal ? 0 : 1),
    };
  }

  /**
   * Notes when the lease's record last changed, by our clock (client-go's observedTime: a change of any
   * field of the record counts, not only of the holder and the renew time).
   */
  function observe(lease: Lease): { holder: string; at: number } {
    const holder = lease.spec?.holderIdentity ?? "";
    const record = recordKey(lease);
    lastRead = lease;
    if (observed?.record !== record) observed = { holder, record, at: tick() };
    return observed;
  }

  /** Held by someone else whose last renewal we observed less than its duration ago (none given: 0 s). */
  function heldByOther(lease: Lease): boolean {
    const { holder, at } = observe(lease);
    if (holder === "" || holder === identity) return false;
    return at + (lease.spec?.leaseDurationSeconds ?? 0) * 1000 > tick();
  }

  async function create(now: string, signal: AbortSignal): Promise<boolean> {
    const fresh: Lease = {
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: { name: config.resourceName, namespace: config.resourceNamespace },
      spec: { ...record(undefined, now), leaseTransitions: 0 },
    };
    try {
      const created = await api.create(LEASES, fresh, { ...target, signal });
      observed = { holder: identity, record: recordKey(created), at: tick(), lease: created };
      renewedAt = tick();
      return true;
    } catch (error) {
      if (isAlreadyExists(error)) return false;
      throw error;
    }
  }

  async function update(lease: Lease, now: string, signal: AbortSignal): Promise<true> {
    const updated = await api.update<Lease>(LEASES, { ...lease, spec: record(lease.spec, now) }, { signal });
    observed = { holder: identity, record: recordKey(updated), at: tick(), lease: updated };
    renewedAt = tick();
    return true;
  }

  /** client-go's fast path: a leader whose lease is still valid renews the Lease as it last wrote it. */
  async function renewOptimistically(now: string, signal: AbortSignal): Promise<boolean> {
    const last = observed?.lease;
    if (!leading || !last || tick() >= renewedAt + config.leaseDurationMs) return false;
    try {
      return await update(last, now, signal);
    } catch (error) {
      if (signal.aborted) throw error;
      deps.logger.warn(`failed to update lease optimistically: ${errorMessage(error)}, falling back to slow path`);
      return false;
    }
  }

  /** The fast path, else (the slow path) the Lease read again: created, taken, renewed or left. */
  async function tryAcquireOrRenew(signal: AbortSignal): Promise<boolean> {
    const now = microTime(clock.now());
    if (await renewOptimistically(now, signal)) return true;
    const lease = await api.get<Lease>(LEASES, config.resourceName, { ...target, signal }).catch((error: unknown) => {
      if (isNotFound(error)) return undefined;
      throw error;
    });
    if (!lease) return create(now, signal);
    const mine = lease.spec?.holderIdentity === identity;
    if (heldByOther(lease) || (leading && !mine)) return false;
    if (leading) deps.onSlowPath?.();
    return update(lease, now, signal);
  }

  async function attempt(signal: AbortSignal): Promise<boolean> {
    try {
      return await tryAcquireOrRenew(signal);
    } catch (error) {
      if (!signal.aborted && !isConflict(error))
        deps.logger.warn(
          `error retrieving or updating lease ${config.resourceNamespace}/${config.resourceName}: ${errorMessage(error)}`,
        );
      return false;
    }
  }

  return {
    get leading() {
      return leading;
    },
    check() {
      const stale = tick() - renewedAt - config.leaseDurationMs;
      return leading && stale > MAX_TOLERABLE_EXPIRED_MS
        ? `failed election to renew leadership on lease ${config.resourceName}`
        : undefined;
    },
    async acquire(signal) {
      deps.logger.info(`attempting to acquire leader lease ${config.resourceNamespace}/${config.resourceName}...`);
      const standby = new AbortController();
      const watch = watchLease(
        api,
        { namespace: config.resourceNamespace, name: config.resourceName, clock },
        AbortSignal.any([signal, standby.signal]),
      );
      let acquired = false;
      try {
        while (!signal.aborted && !(acquired = await attempt(signal))) {
          await Promise.race([
            clock.sleep(jitter(config.retryPeriodMs, JITTER), signal).catch(() => undefined),
            watch.released(),
          ]);
        }
      } finally {
        standby.abort();
      }
      if (!acquired) return false;
      setLeading(true);
      deps.logger.info(`successfully acquired lease ${config.resourceNamespace}/${config.resourceName} as ${identity}`);
      if (observed?.lease) deps.recorder.event(observed.lease, "Normal", "LeaderElection", `${identity} became leader`);
      return true;
    },
    async renew(signal) {
      while (!signal.aborted) {
        await clock.sleep(config.retryPeriodMs, signal).catch(() => undefined);
        if (signal.aborted) return;
        const deadline = tick() + config.renewDeadlineMs;
        let renewed = false;
        while (!renewed && tick() < deadline && !signal.aborted) {
          renewed = await attempt(AbortSignal.any([signal, AbortSignal.timeout(Math.max(1, deadline - tick()))]));
          if (!renewed) await clock.sleep(config.retryPeriodMs, signal).catch(() => undefined);
        }
        if (!renewed && !signal.aborted) {
          stoppedLeading();
          throw new LeadershipLostError(
            `leaderelection lost: could not renew lease ${config.resourceNamespace}/${config.resourceName} within ${config.renewDeadlineMs} ms`,
          );
        }
      }
    },
    async release() {
      if (!leading || !observed?.lease) return;
      const name = `${config.resourceNamespace}/${config.resourceName}`;
      try {
        const released = await releaseLease(AbortSignal.timeout(config.renewDeadlineMs));
        if (released) deps.logger.info(`released lease ${name} (was held by ${identity})`);
        else deps.logger.info(`lease ${name} no longer names ${identity}: nothing to release`);
      } catch (error) {
        deps.logger.warn(`could not release lease ${name}: ${errorMessage(error)}`);
      } finally {
        stoppedLeading();
      }
    },
  };

  function stoppedLeading(): void {
    const lease = observed?.lease ?? lastRead;
    if (leading && lease) deps.recorder.event(lease, "Normal", "LeaderElection", `${identity} stopped leading`);
    setLeading(false);
  }

  /** The Lease read again and, while it names this process, handed back; a conflict reads it again. */
  async function releaseLease(signal: AbortSignal): Promise<boolean> {
    for (;;) {
      const lease = await api.get<Lease>(LEASES, config.resourceName, { ...target, signal });
      if (lease.spec?.holderIdentity !== identity) return false;
      const now = microTime(clock.now());
      const spec = {
        leaseDurationSeconds: 1,
        acquireTime: now,
        renewTime: now,
        leaseTransitions: lease.spec.leaseTransitions ?? 0,
        holderIdentity: "",
      };
      try {
        await api.update<Lease>(LEASES, { ...lease, spec }, { signal });
        return true;
      } catch (error) {
        if (!isConflict(error) || signal.aborted) throw error;
      }
    }
  }
}
