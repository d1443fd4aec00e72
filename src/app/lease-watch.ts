/**
 * Beyond upstream: a standby watches the Lease, so when the leader releases it on shutdown the standby
 * tries at once instead of at its next jittered retry (up to 2.2 × the retry period later). Polling stays
 * the source of truth; this only shortens the wait. A Lease deleted (by hand) is not a release: the leader
 * makes it again at its next renewal, as upstream's does, and a standby rushing in would race it.
 */
import { LEASES, type KubeApi } from "../kube/api.ts";
import type { Lease } from "../kube/objects.ts";
import type { Clock } from "../util/clock.ts";

export interface LeaseWatch {
  /** Resolves at the next sign the Lease was released (an empty holder), or never. */
  released(): Promise<void>;
}

const WATCH_TIMEOUT_S = 300;

export function watchLease(
  api: KubeApi,
  o: { namespace: string; name: string; clock: Clock },
  signal: AbortSignal,
): LeaseWatch {
  let wake: (() => void) | undefined;
  let next = new Promise<void>((resolve) => (wake = resolve));
  const fire = (): void => {
    const done = wake;
    next = new Promise<void>((resolve) => (wake = resolve));
    done?.();
  };
  const watchOnce = async (): Promise<void> => {
    const lease = await api.get<Lease>(LEASES, o.name, { namespace: o.namespace, signal });
    const events = api.watch<Lease>(LEASES, {
      namespace: o.namespace,
      fieldSelector: `metadata.name=${o.name}`,
      resourceVersion: lease.metadata.resourceVersion ?? "",
      timeoutSeconds: WATCH_TIMEOUT_S,
      signal,
    });
    for await (const e of events)
      if ((e.type === "ADDED" || e.type === "MODIFIED") && !e.object.spec?.holderIdentity) fire();
  };
  void (async () => {
    while (!signal.aborted) {
      // Not found yet, forbidden or disconnected: polling still covers it; look again shortly.
      await watchOnce().catch(() => o.clock.sleep(2000, signal).catch(() => undefined));
    }
  })();
  return { released: () => next };
}
