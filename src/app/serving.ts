/**
 * Wires the secure port: health checks (`ping`, `leaderElection`, one per started controller, and
 * `informer-sync` for readiness), delegated auth through the manager's (or the dedicated) kubeconfigs,
 * and `/metrics` from the registry.
 */
import type { Server } from "bun";
import type { Config } from "../config/config.ts";
import type { KubeApi } from "../kube/api.ts";
import { resolveConnection } from "../kube/connection.ts";
import { TokenBucket } from "../kube/token-bucket.ts";
import type { Logger } from "../log/logger.ts";
import type { MetricsHub } from "../metrics/hub.ts";
import { createAuthorizer } from "../serving/auth.ts";
import { createHealthRegistry, type HealthRegistry } from "../serving/health.ts";
import { startSecureServer } from "../serving/server.ts";
import type { ClientFactory } from "./clients.ts";

/** Review traffic gets its own bucket (client-go's delegated-auth defaults), so scrapes never slow controllers. */
const AUTH_QPS = 200;
const AUTH_BURST = 400;

/**
 * `/healthz` as upstream (ping, leaderElection, one check per controller); `/livez` only what a restart
 * would fix; `/readyz` also waits for the caches (`informer-sync*`), so a fresh leader is not "ready" early.
 */
export function createHealth(): HealthRegistry {
  const readinessOnly = (name: string): boolean => name.startsWith("informer-sync");
  const health = createHealthRegistry({
    "/healthz": (name) => !readinessOnly(name),
    "/livez": (name) => name === "ping" || name === "leaderElection",
    "/readyz": "all",
  });
  health.add("ping", () => undefined);
  return health;
}

async function reviewClient(path: string, fallback: KubeApi, factory: ClientFactory, limiter: TokenBucket): Promise<KubeApi> {
  if (path === "") return fallback;
  return factory.api(await resolveConnection({ kubeconfig: path, master: "" }), limiter);
}

export async function startServing(o: {
  config: Config;
  logger: Logger;
  health: HealthRegistry;
  metrics: MetricsHub;
  root: KubeApi;
  factory: ClientFactory;
  hostname: string;
}): Promise<Server<undefined> | undefined> {
  const s = o.config.serving;
  if (s.securePort === 0) {
    o.logger.info("secure serving is disabled (--secure-port=0)");
    return undefined;
  }
  const limiter = TokenBucket.create(AUTH_QPS, AUTH_BURST);
  const authorize = createAuthorizer({
    authn: await reviewClient(s.authenticationKubeconfig, o.root, o.factory, limiter),
    authz: await reviewClient(s.authorizationKubeconfig, o.root, o.factory, limiter),
    alwaysAllowPaths: s.alwaysAllowPaths,
    authnTtlMs: s.authenticationCacheTtlMs,
    allowedTtlMs: s.authorizedTtlMs,
    deniedTtlMs: s.unauthorizedTtlMs,
    logger: o.logger.withTag("serving"),
  });
  return startSecureServer({
    config: s,
    logger: o.logger.withTag("serving"),
    health: o.health,
    authorize,
    metrics: () => o.metrics.render(),
    hostname: o.hostname,
  });
}
