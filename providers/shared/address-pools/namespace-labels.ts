/**
 * Namespace labels for pools' `namespaceSelectors`, matched as MetalLB matches them: against the
 * Namespace's real labels, from the manager's Namespace cache (`ProviderInit.namespaces`). The cache is
 * asked for only where an address is decided with a pool that selects namespaces by label and may judge
 * the Service (`judgingPools`; at the table's rebuild, such a pool holding an address a Service shows), so
 * a cluster without such pools watches no Namespaces, and a Service no such pool judges never waits.
 * When a Namespace is created or its labels change, `onChange` names it, so its Services are synced
 * again (a Service that was refused may now be served, one that was served may no longer be).
 */
import type { LoadBalancerChange, ProviderInit } from "../../../src/cloud/provider.ts";
import type { InformerView } from "../../../src/kube/informer.ts";
import type { KubeObject } from "../../../src/kube/objects.ts";
import { sameJson } from "../../../src/util/json.ts";
import { selectsNamespaces, type Pool } from "./pools.ts";

/** Set by the API server on every Namespace, equal to its name. */
const NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name";

export interface NamespaceLabels {
  /** The Namespace's labels; not cached (yet): the one label every Namespace carries, its name. */
  labels(namespace: string): Readonly<Record<string, string>>;
  /**
   * Resolves once labels can be trusted for `pools`: at once when no pool selects namespaces by label or
   * the manager offers no Namespace cache; otherwise once the cache (started on the first such call) has
   * listed. Rejects when `signal` aborts first.
   */
  ready(pools: readonly Pool[], signal?: AbortSignal): Promise<void>;
}

/** How long a decision waits for the Namespace cache's first listing before it fails (and is retried). */
const SYNC_WAIT_MS = 10_000;

/**
 * `onChange`: a Namespace was created or relabelled after the cache listed (that namespace), or the
 * cache has listed (the Services that failed while it had not).
 */
export function createNamespaceLabels(
  init: ProviderInit,
  onChange: (change: LoadBalancerChange) => void,
  waitMs = SYNC_WAIT_MS,
): NamespaceLabels {
  let cache: InformerView<KubeObject> | undefined;
  /** A decision failed for want of the listing: once it comes, the Services that failed are asked for. */
  let gaveUp = false;
  const follow = (view: InformerView<KubeObject>): void => {
    const changed = (ns: KubeObject): void => onChange({ namespace: ns.metadata.name });
    let replayed = false;
    const remove = view.addHandler({
      add: (ns) => replayed && view.synced && changed(ns),
      update: (old, ns) => !sameJson(old.metadata.labels ?? {}, ns.metadata.labels ?? {}) && changed(ns),
    });
    replayed = true;
    init.signal.addEventListener("abort", remove, { once: true });
    void view.waitForSync(init.signal).then((synced) => synced && gaveUp && onChange({ waitingOnly: true }));
  };
  return {
    labels: (namespace) => cache?.get(namespace)?.metadata.labels ?? { [NAMESPACE_NAME_LABEL]: namespace },
    async ready(pools, signal) {
      if (!init.namespaces || !selectsNamespaces(pools)) return;
      if (!cache) {
        cache = init.namespaces();
        follow(cache);
      }
      if (cache.synced) return;
      const stop = AbortSignal.any([init.signal, ...(signal ? [signal] : [])]);
      if (await cache.waitForSync(AbortSignal.any([stop, AbortSignal.timeout(waitMs)]))) return;
      if (stop.aborted) throw new Error("stopped before the Namespace cache synced");
      gaveUp = true;
      throw new Error(
        "address pools select namespaces by label, and Namespaces are not read yet (may the manager list and watch namespaces?)",
      );
    },
  };
}
