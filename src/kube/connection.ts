/**
 * Where the API server is and how to prove who we are: resolved once from `--kubeconfig` / `--master`
 * (or the in-cluster service account) with `@kubernetes/client-node`'s loader, which understands every
 * kubeconfig form (files or inline data, tokens, token files, exec plugins).
 */
import { KubeConfig } from "@kubernetes/client-node";
import type { RequestOptions } from "node:https";

export interface ConnectionSource {
  /** Path to a kubeconfig; empty for in-cluster config (unless `master` is set). */
  readonly kubeconfig: string;
  /** Overrides the kubeconfig's server URL (upstream `--master`). */
  readonly master: string;
}

export interface TlsMaterial {
  readonly ca?: string;
  readonly cert?: string;
  readonly key?: string;
  readonly rejectUnauthorized: boolean;
  readonly serverName?: string;
}

export interface Connection {
  readonly server: string;
  readonly tls: TlsMaterial;
  /** The `Authorization` header value, refreshed when the kubeconfig's credentials rotate. */
  authorization(): Promise<string | undefined>;
}

/** How long a resolved Authorization header is reused before asking the kubeconfig again. */
const AUTH_REFRESH_MS = 30_000;

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

export function loadKubeConfig(source: ConnectionSource): KubeConfig {
  const kc = new KubeConfig();
  if (source.kubeconfig !== "") kc.loadFromFile(source.kubeconfig);
  else if (source.master !== "")
    kc.loadFromClusterAndUser({ name: "master", server: source.master, skipTLSVerify: false }, { name: "anonymous" });
  else kc.loadFromCluster();
  return kc;
}

export async function resolveConnection(source: ConnectionSource): Promise<Connection> {
  const kc = loadKubeConfig(source);
  const cluster = kc.getCurrentCluster();
  const server = source.master !== "" ? source.master : cluster?.server;
  if (!server)
    throw new Error(
      `no API server address: the kubeconfig ${JSON.stringify(source.kubeconfig)} names no cluster server and --master is empty`,
    );
  const opts: RequestOptions = {};
  await kc.applyToHTTPSOptions(opts);
  const tls: TlsMaterial = {
    ca: text(opts.ca),
    cert: text(opts.cert),
    key: text(opts.key),
    rejectUnauthorized: cluster?.skipTLSVerify !== true,
    serverName: cluster?.tlsServerName,
  };
  return { server: server.replace(/\/+$/, ""), tls, authorization: cachedAuthorization(kc) };
}

/** A connection to the same server with a different bearer token (per-controller credentials). */
export function withBearerToken(base: Connection, token: () => Promise<string>): Connection {
  const tls: TlsMaterial = { ...base.tls, cert: undefined, key: undefined };
  return { server: base.server, tls, authorization: async () => `Bearer ${await token()}` };
}

function cachedAuthorization(kc: KubeConfig): () => Promise<string | undefined> {
  let value: string | undefined;
  let fetchedAt = Number.NEGATIVE_INFINITY;
  return async () => {
    if (Date.now() - fetchedAt < AUTH_REFRESH_MS) return value;
    const opts: RequestOptions = {};
    await kc.applyToHTTPSOptions(opts);
    const headers = (opts.headers ?? {}) as Record<string, string | undefined>;
    value = headers.Authorization ?? headers.authorization;
    fetchedAt = Date.now();
    return value;
  };
}

function text(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (Buffer.isBuffer(value)) return value.toString("utf8");
  if (Array.isArray(value)) return value.map((v) => text(v) ?? "").join("\n");
  return typeof value === "string" ? value : undefined;
}
