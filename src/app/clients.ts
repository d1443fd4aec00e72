/**
 * The manager's API clients. Every controller client draws from one token bucket (`--kube-api-qps` /
 * `--kube-api-burst` is a process-wide ceiling); with `--use-service-account-credentials` each controller
 * writes with its own ServiceAccount's token (upstream client names node-controller, service-controller,
 * route-controller), while informers stay on the root identity.
 */
import { SERVICE_ACCOUNTS, createKubeApi, type KubeApi } from "../kube/api.ts";
import { withBearerToken, type Connection } from "../kube/connection.ts";
import type { TokenBucket } from "../kube/token-bucket.ts";
import {
  DEFAULT_MAX_IN_FLIGHT,
  createTransport,
  httpClientFor,
  isAlreadyExists,
  isNotFound,
  type RequestMetrics,
  type RequestObserver,
} from "../kube/transport.ts";
import type { HttpClient } from "../kube/http1/client.ts";
import type { Logger } from "../log/logger.ts";
import type { Metrics } from "../metrics/metrics.ts";
import { CLIENT_IDENTITIES, type ControllerIdentity } from "../names/controllers.ts";
import type { Clock } from "../util/clock.ts";
import { userAgent as defaultUserAgent } from "../version.ts";
import { Semaphore, type Slots } from "../util/concurrency.ts";
import { memo } from "../util/memo.ts";

export interface ClientOptions {
  /** The User-Agent (default: the manager's). */
  readonly agent?: string;
  /** Connections of its own, for a client that must never wait behind the controllers' requests. */
  readonly ownConnections?: boolean;
  /** Each request's own time limit (default the transport's, 30 s). */
  readonly timeoutMs?: number;
}

export interface ClientFactory {
  /**
   * A client for `connection` drawing from `limiter`, reporting to the rest_client metrics. Unless it
   * asks for its own, it shares the process's connections with every other client of the factory.
   */
  api(connection: Connection, limiter: TokenBucket, options?: ClientOptions): KubeApi;
}

/** The transport's observations as `rest_client_*` series of one host, each bound on first use. */
function requestMetrics(metrics: Metrics, host: string): { observe: RequestObserver; metrics: RequestMetrics } {
  const byVerb = memo((verb) => ({
    latency: metrics.restLatency.bind({ verb, host }),
    limiter: metrics.restRateLimiter.bind({ verb, host }),
    requestSize: metrics.restRequestSize.bind({ verb, host }),
    responseSize: metrics.restResponseSize.bind({ verb, host }),
    requests: memo((code) => metrics.restRequests.bind({ code, method: verb, host })),
    retries: memo((code) => metrics.restRetries.bind({ code, method: verb, host })),
  }));
  return {
    observe: (method, code, seconds) => {
      const verb = byVerb(method);
      verb.requests(code).inc();
      verb.latency.observe(seconds);
    },
    metrics: {
      rateLimited: (verb, seconds) => byVerb(verb).limiter.observe(seconds),
      sizes: (verb, requestBytes, responseBytes) => {
        const series = byVerb(verb);
        series.requestSize.observe(requestBytes);
        series.responseSize.observe(responseBytes);
      },
      retried: (method, code) => byVerb(method).retries(code).inc(),
    },
  };
}

/**
 * `wire`: the requests on the wire at once for all the clients that share the process's connections (the
 * per-controller identities and the manager's own), so that --use-service-account-credentials does not
 * multiply them; a number makes slots of this process's own. `logger` is told when the kubeconfig's
 * client certificate is renewed, or a renewal is refused.
 */
export function clientFactory(
  metrics: Metrics,
  wire: Slots | number = DEFAULT_MAX_IN_FLIGHT,
  logger?: Logger,
): ClientFactory {
  const slots = typeof wire === "number" ? new Semaphore(wire) : wire;
  const report = (message: string, refused: boolean): void =>
    void (refused ? logger?.warn(message) : logger?.info(message));
  // One set of connections per server and TLS material: the ServiceAccount identities (bearer tokens,
  // no client certificate) share theirs, and never a connection made with the manager's certificate.
  const connect = (connection: Connection): HttpClient => httpClientFor(connection, { certificate: { report } });
  const pools = new Map<string, HttpClient>();
  const pool = (connection: Connection): HttpClient => {
    const key = JSON.stringify([connection.server, connection.tls, connection.proxy]);
    let http = pools.get(key);
    if (http === undefined) pools.set(key, (http = connect(connection)));
    return http;
  };
  return {
    api(connection, limiter, options = {}) {
      const observed = requestMetrics(metrics, new URL(connection.server).host);
      const userAgent = options.agent ?? defaultUserAgent();
      const shared = options.ownConnections ? { http: connect(connection) } : { wire: slots, http: pool(connection) };
      const defaultTimeoutMs = options.timeoutMs;
      return createKubeApi(
        createTransport({ connection, limiter, userAgent, defaultTimeoutMs, ...shared, ...observed }),
      );
    },
  };
}

const TOKEN_SECONDS = 3600;
/** Refresh when this share of the token's life has passed (client-go rotates well before expiry). */
const REFRESH_AT = 0.8;

interface TokenRequestStatus {
  status?: { token?: string; expirationTimestamp?: string };
}

/** Keeps a ServiceAccount token fresh: requested on first use, re-requested at 80% of its lifetime. */
function rotatingToken(root: KubeApi, namespace: string, name: string, clock: Clock): () => Promise<string> {
  let current: { token: string; refreshAt: number } | undefined;
  let pending: Promise<string> | undefined;
  const request = async (): Promise<string> => {
    const answer = await root.create<TokenRequestStatus>(
      SERVICE_ACCOUNTS,
      {
        apiVersion: "authentication.k8s.io/v1",
        kind: "TokenRequest",
        spec: { expirationSeconds: TOKEN_SECONDS },
      } as TokenRequestStatus,
      { namespace, subresource: `${encodeURIComponent(name)}/token` },
    );
    const token = answer.status?.token;
    if (!token) throw new Error(`TokenRequest for ${namespace}/${name} returned no token`);
    const expires = Date.parse(answer.status?.expirationTimestamp ?? "") || clock.now() + TOKEN_SECONDS * 1000;
    current = { token, refreshAt: clock.now() + (expires - clock.now()) * REFRESH_AT };
    return token;
  };
  return () => {
    if (current && clock.now() < current.refreshAt) return Promise.resolve(current.token);
    pending ??= request().finally(() => (pending = undefined));
    return pending;
  };
}

async function ensureServiceAccount(root: KubeApi, namespace: string, name: string): Promise<void> {
  try {
    await root.get(SERVICE_ACCOUNTS, name, { namespace });
  } catch (error) {
    if (!isNotFound(error)) throw error;
    await root
      .create(
        SERVICE_ACCOUNTS,
        { apiVersion: "v1", kind: "ServiceAccount", metadata: { name, namespace } },
        { namespace },
      )
      .catch((e: unknown) => {
        if (!isAlreadyExists(e)) throw e;
      });
  }
}

export interface ControllerClients {
  apiFor(identity: ControllerIdentity): KubeApi;
}

/** Per-controller clients: the root one, or (with SA credentials) one per ServiceAccount, made on start. */
export async function controllerClients(o: {
  enabled: boolean;
  root: KubeApi;
  connection: Connection;
  limiter: TokenBucket;
  factory: ClientFactory;
  namespace: string;
  clock: Clock;
  logger: Logger;
}): Promise<ControllerClients> {
  if (!o.enabled) return { apiFor: () => o.root };
  const clients = new Map<ControllerIdentity, KubeApi>();
  for (const identity of CLIENT_IDENTITIES) {
    await ensureServiceAccount(o.root, o.namespace, identity);
    const token = rotatingToken(o.root, o.namespace, identity, o.clock);
    await token();
    clients.set(
      identity,
      o.factory.api(withBearerToken(o.connection, token), o.limiter, {
        agent: `${defaultUserAgent()} ${identity}`,
      }),
    );
  }
  o.logger.info(`using ServiceAccount credentials: ${CLIENT_IDENTITIES.map((i) => `${o.namespace}/${i}`).join(", ")}`);
  return { apiFor: (identity) => clients.get(identity) ?? o.root };
}
