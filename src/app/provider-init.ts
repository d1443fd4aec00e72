/**
 * What `CloudProvider.initialize` gets on the leader (the `ProviderInit` of the contract): the shared
 * caches, the API client, readiness checks, events, and the Namespace cache, which is made only when the
 * provider first asks for it (so other providers watch nothing more and need no more RBAC).
 */
import type { ProviderInit } from "../cloud/provider.ts";
import { NAMESPACES, type KubeApi } from "../kube/api.ts";
import type { EventSink } from "../kube/events.ts";
import { Informer } from "../kube/informer.ts";
import type { SharedInformers } from "../kube/informers.ts";
import type { KubeObject } from "../kube/objects.ts";
import { WHOLE, type Shard } from "../kube/shard.ts";
import type { Logger } from "../log/logger.ts";
import type { HealthRegistry } from "../serving/health.ts";
import type { Clock } from "../util/clock.ts";

/** What of the leader's dependencies (run-controllers.ts `LeaderDeps`) the provider's share is made from. */
export interface ProviderInitDeps {
  readonly root: KubeApi;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly health: HealthRegistry;
  readonly events: Pick<EventSink, "recorder">;
  readonly shard?: Shard;
  readonly replica?: ProviderInit["replica"];
  /** A controller thread's controllers; absent: every one. */
  readonly only?: ReadonlySet<string>;
}

/** Provider checks are registered under this prefix; they count for `/readyz` only. */
export const PROVIDER_READINESS_PREFIX = "provider-";

/** A Namespace as cached: its name and labels (what namespace selectors match), nothing else. */
export function trimNamespace(namespace: KubeObject): KubeObject {
  const { name, uid, resourceVersion, labels } = namespace.metadata;
  return { apiVersion: "v1", kind: "Namespace", metadata: { name, uid, resourceVersion, labels } };
}

export function buildProviderInit(
  deps: ProviderInitDeps,
  informers: SharedInformers,
  signal: AbortSignal,
): ProviderInit {
  let namespaces: Informer<KubeObject> | undefined;
  const namespacesView = (): Informer<KubeObject> => {
    if (!namespaces) {
      const logger = deps.logger.withTag("informers");
      namespaces = new Informer({
        api: deps.root,
        resource: NAMESPACES,
        logger,
        clock: deps.clock,
        transform: trimNamespace,
      });
      void namespaces.run(signal);
    }
    return namespaces;
  };
  // Offered only where load balancers are ensured: a controller thread without the service controller
  // would watch Namespaces for nothing.
  const ensuresLoadBalancers = deps.only === undefined || deps.only.has("service-lb-controller");
  return {
    signal,
    nodes: informers.nodes(),
    services: informers.services(),
    waitForSync: (s) => informers.waitForSync(s),
    kube: deps.root,
    addReadinessCheck: (name, check) => deps.health.add(`${PROVIDER_READINESS_PREFIX}${name}`, check),
    // Every thread initialises the provider: one of them speaks for it.
    recorder: (deps.shard ?? WHOLE).index === 0 ? deps.events.recorder("cloud-controller-manager") : undefined,
    replica: deps.replica,
    addServiceHandler: (handler) => informers.services().addHandler(handler),
    ...(ensuresLoadBalancers ? { namespaces: namespacesView } : {}),
  };
}
