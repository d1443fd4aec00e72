/**
 * Wires the secure port: health checks (`ping`, `leaderElection`, one per started controller, and
 * `informer-sync` for readiness), delegated auth through the manager's (or the dedicated) kubeconfigs,
 * `/metrics` from the registry, `/metrics/slis` from the health checks, `/configz` from the config.
 */
import type { Config } from "../config/config.ts";
import type { KubeApi } from "../kube/api.ts";
import type { Connection } from "../kube/connection.ts";
import { TokenBucket } from "../kube/token-bucket.ts";
import type { Logger } from "../log/logger.ts";
import type { LagMonitor } from "../metrics/event-loop-lag.ts";
import type { MetricsHub } from "../metrics/hub.ts";
import type { Metrics } from "../metrics/metrics.ts";
import type { HealthSlis } from "../metrics/slis.ts";
import { createAuthorizer } from "../serving/auth.ts";
import { createHealthRegistry, type HealthRegistry } from "../serving/health.ts";
import { watchClientAuth } from "../serving/authn-sources.ts";
import { startSecureServer, type SecureServer } from "../serving/server.ts";
import { resolveTls, type TlsSettings } from "../config/tls-options.ts";
import type { ClientFactory } from "./clients.ts";
import { configz } from "./configz.ts";
import { PROVIDER_READINESS_PREFIX } from "./run-controllers.ts";

/** Review traffic gets its own bucket (client-go's delegated-auth defaults), so scrapes never slow controllers. */
const AUTH_QPS = 200;
const AUTH_BURST = 400;

/**
/**
 * `/healthz` as upstream (ping, leaderElection, one check per controller) and the main thread's
 * `event-loop-lag`; `/livez` only what a restart would fix (not lag: a restart would not make the work
 * lighter); `/readyz` also waits for the caches (`informer-sync*`), so a fresh leader is not "ready" early,
 * and runs the provider's own readiness checks (`provider-*`).
 */
export function createHealth(slis: HealthSlis, lag?: LagMonitor): HealthRegistry {
  const readinessOnly = (name: string): boolean =>
    name.startsWith("informer-sync") || name.startsWith(PROVIDER_READINESS_PREFIX);
  const health = createHealthRegistry(
    {
      "/healthz": (name) => !readinessOnly(name),
      "/livez": (name) => name === "ping" || name === "leaderElection",
      "/readyz": "all",
    },
    (type, name, healthy) => slis.record(type, name, healthy),
  );
  health.add("ping", () => undefined);
  if (lag) health.add("event-loop-lag", () => lag.check());
  return health;
}

/** Where TokenReviews and SubjectAccessReviews go when not to the manager's own API server. */
export interface ReviewConnections {
  /** `--authentication-kubeconfig`, resolved. */
  readonly authentication?: Connection;
  /** `--authorization-kubeconfig`, resolved. */
  readonly authorization?: Connection;
}

function reviewClient(
  connection: Connection | undefined,
  fallback: KubeApi,
  factory: ClientFactory,
  limiter: TokenBucket,
): KubeApi {
  return connection ? factory.api(connection, limiter, { ownConnections: true }) : fallback;
}

/** The TLS and client-certificate flags in the serving layer's terms. */
function tlsOf(s: Config["serving"]): TlsSettings {
  const resolved = resolveTls({
    minVersion: s.tlsMinVersion,
    cipherSuites: s.tlsCipherSuites,
    curvePreferences: s.tlsCurvePreferences,
  });
  if (!resolved.ok) throw new Error(resolved.errors.join("; "));
  return resolved.settings;
}

export async function startServing(o: {
  config: Config;
  logger: Logger;
  health: HealthRegistry;
  metrics: MetricsHub;
  registry: Metrics;
  slis: HealthSlis;
  root: KubeApi;
  factory: ClientFactory;
  hostname: string;
  reviews: ReviewConnections;
  signal: AbortSignal;
}): Promise<SecureServer | undefined> {
  const s = o.config.serving;
  if (s.securePort === 0) {
    o.logger.info("secure serving is disabled (--secure-port=0)");
    return undefined;
  }
  const logger = o.logger.withTag("serving");
  const limiter = TokenBucket.create(AUTH_QPS, AUTH_BURST);
  const authn = reviewClient(o.reviews.authentication, o.root, o.factory, limiter);
  const certificates = await watchClientAuth(s.clientAuth, authn, logger, o.signal);
  const authorize = createAuthorizer({
    authn,
    authz: reviewClient(o.reviews.authorization, o.root, o.factory, limiter),
    certificates: () => certificates().auth,
    alwaysAllowPaths: s.alwaysAllowPaths,
    authnTtlMs: s.authenticationCacheTtlMs,
    allowedTtlMs: s.authorizedTtlMs,
    deniedTtlMs: s.unauthorizedTtlMs,
    logger,
    observe: (review, code, seconds) => {
      const [count, latency] =
        review === "authn"
          ? [o.registry.delegatedAuthnRequests, o.registry.delegatedAuthnLatency]
          : [o.registry.delegatedAuthzRequests, o.registry.delegatedAuthzLatency];
      count.inc({ code });
      latency.observe({ code }, seconds);
    },
  });
  return startSecureServer({
    config: s,
    tls: tlsOf(s),
    sniCertKeys: s.sniCertKeys,
    clientCAs: () => certificates().pems,
    logger,
    health: o.health,
    authorize,
    handlers: {
      "/metrics": () => o.metrics.render(),
      "/metrics/slis": () => o.slis.render(),
      "/configz": () => Promise.resolve(configz(o.config)),
    },
    hostname: o.hostname,
  });
}
