/**
 * Where the API server is and how to prove who we are. The main thread resolves it from the kubeconfig
 * (kubeconfig.ts); this file stays free of `@kubernetes/client-node`, so that controller threads, which
 * receive a resolved connection, do not load that library (about 27 MiB per thread).
 */

export interface ConnectionSource {
  /** Path to a kubeconfig; empty for in-cluster config (unless `master` is set). */
  readonly kubeconfig: string;
  /** Overrides the kubeconfig's server URL (upstream `--master`). */
  readonly master: string;
  /** The environment, for HTTPS_PROXY / HTTP_PROXY / NO_PROXY (none read when absent). */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

export interface TlsMaterial {
  readonly ca?: string;
  readonly cert?: string;
  readonly key?: string;
  /**
   * Where `cert` and `key` were read from, when the kubeconfig names both as files (neither inline): the
   * HTTP client reads them again (http1/client-cert.ts), so a renewed pair is used without a restart.
   */
  readonly certFile?: string;
  readonly keyFile?: string;
  readonly rejectUnauthorized: boolean;
  readonly serverName?: string;
}

export interface Connection {
  readonly server: string;
  readonly tls: TlsMaterial;
  /** The proxy to reach the server through (kubeconfig `proxy-url` or the environment), if any. */
  readonly proxy?: string;
  /** The `Authorization` header value, refreshed when the kubeconfig's credentials rotate. */
  authorization(): Promise<string | undefined>;
}

/** A connection as it crosses to a controller thread: no function, the header asked for by message. */
export type ConnectionData = Omit<Connection, "authorization">;

/** How long a resolved Authorization header is reused before asking its source again. */
const AUTH_REFRESH_MS = 30_000;

/** Asks `fetch` for the header at most every `AUTH_REFRESH_MS` (rotated tokens are picked up). */
export function cachedAuthorization(fetch: () => Promise<string | undefined>): () => Promise<string | undefined> {
  let value: string | undefined;
  let fetchedAt = Number.NEGATIVE_INFINITY;
  return async () => {
    if (Date.now() - fetchedAt < AUTH_REFRESH_MS) return value;
    value = await fetch();
    fetchedAt = Date.now();
    return value;
  };
}

/**
 * `--master` as client-go takes it: an http(s) URL, or `host[:port]` meaning https; undefined when it is
 * neither (a typo such as `https//10.0.0.1` would otherwise fail only at the first request).
 */
export function normalizeMaster(master: string): string | undefined {
  if (master === "") return "";
  const schemed = /^[a-z][a-z0-9+.-]*:\/\//i.test(master);
  if (!schemed && /[/\s]/.test(master.replace(/\/+$/, ""))) return undefined;
  const withScheme = schemed ? master : `https://${master}`;
  return isPlainServerUrl(withScheme) ? withScheme.replace(/\/+$/, "") : undefined;
}

/** An http(s) URL with a host and nothing client-go would not send: no query, fragment or credentials. */
function isPlainServerUrl(text: string): boolean {
  const url = URL.parse(text);
  if (url === null || (url.protocol !== "https:" && url.protocol !== "http:") || url.hostname === "") return false;
  return url.search === "" && url.hash === "" && url.username === "" && url.password === "";
}

/** A connection to the same server with a different bearer token (per-controller credentials). */
export function withBearerToken(base: Connection, token: () => Promise<string>): Connection {
  const tls: TlsMaterial = { ...base.tls, cert: undefined, key: undefined, certFile: undefined, keyFile: undefined };
  return { server: base.server, tls, proxy: base.proxy, authorization: async () => `Bearer ${await token()}` };
}
