/**
 * Resolves `--kubeconfig` / `--master` (or the in-cluster service account) once, with
 * `@kubernetes/client-node`'s loader, which understands every kubeconfig form (files or inline data,
 * tokens, exec plugins; client-go's `tokenFile` read here, re-read at each refresh). Main thread only:
 * controller threads get the result (connection.ts).
 */
import { KubeConfig } from "@kubernetes/client-node";
import { readFileSync } from "node:fs";
import type { RequestOptions } from "node:https";
import { dirname, resolve } from "node:path";
import { proxyFor } from "./proxy.ts";
import { cachedAuthorization, type Connection, type ConnectionSource, type TlsMaterial } from "./connection.ts";

export function loadKubeConfig(source: ConnectionSource): KubeConfig {
  const kc = new KubeConfig();
  if (source.kubeconfig !== "") loadFile(kc, source.kubeconfig);
  else if (source.master !== "")
    kc.loadFromClusterAndUser({ name: "master", server: source.master, skipTLSVerify: false }, { name: "anonymous" });
  else kc.loadFromCluster();
  return kc;
}

/**
 * An `http://` server is spoken to in plain HTTP, as client-go does (`kubectl proxy`, a local insecure
 * port). The loader refuses one unless TLS checks are off, though none apply to it: they are turned off
 * in the loader's copy, after the connection's own TLS settings were read (a `--master` of https still
 * verifies).
 */
function allowPlainHttp(kc: KubeConfig): void {
  kc.clusters = kc.clusters.map((c) => (c.server.startsWith("http:") ? { ...c, skipTLSVerify: true } : c));
}

/**
 * The loader fails on a document that is not a mapping (an empty file, `---`, a comment alone) with a
 * TypeError about its own internals. An empty file gets client-go's words for it.
 */
function loadFile(kc: KubeConfig, file: string): void {
  try {
    kc.loadFromFile(file);
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    const empty = readFileSync(file, "utf8").trim() === "";
    const reason = empty
      ? "no configuration has been provided: the file is empty"
      : "not a kubeconfig: no YAML mapping";
    throw new Error(reason, { cause: error });
  }
}

export async function resolveConnection(source: ConnectionSource): Promise<Connection> {
  const kc = loadKubeConfig(source);
  const cluster = kc.getCurrentCluster();
  const server = source.master !== "" ? source.master : cluster?.server;
  if (!server)
    throw new Error(
      `no API server address: the kubeconfig ${JSON.stringify(source.kubeconfig)} names no cluster server and --master is empty`,
    );
  const rejectUnauthorized = cluster?.skipTLSVerify !== true;
  allowPlainHttp(kc);
  const opts: RequestOptions = {};
  await kc.applyToHTTPSOptions(opts);
  const tls: TlsMaterial = {
    ca: text(opts.ca),
    cert: text(opts.cert),
    key: text(opts.key),
    rejectUnauthorized,
    serverName: cluster?.tlsServerName,
    ...certificateFiles(kc, source.kubeconfig),
  };
  const base = server.replace(/\/+$/, "");
  const tokenFile = source.kubeconfig === "" ? undefined : tokenFileOf(kc, source.kubeconfig);
  return {
    server: base,
    tls,
    proxy: proxyFor(base, cluster?.proxyUrl, source.env ?? {}),
    authorization: cachedAuthorization(tokenFile ? fileAuthorization(tokenFile) : () => kubeconfigAuthorization(kc)),
  };
}

/**
 * The current user's client-certificate and client-key, when both are files and neither is inline data
 * (client-go's condition for reloading them), resolved against the kubeconfig's folder.
 */
function certificateFiles(kc: KubeConfig, file: string): { certFile?: string; keyFile?: string } {
  const user = kc.getCurrentUser();
  if (file === "" || !user?.certFile || !user.keyFile || user.certData || user.keyData) return {};
  return { certFile: resolve(dirname(file), user.certFile), keyFile: resolve(dirname(file), user.keyFile) };
}

/**
 * The current user's `tokenFile` (client-go's key; the loader knows only a `token-file` of its own),
 * resolved against the kubeconfig's folder as client-go resolves its paths.
 */
function tokenFileOf(kc: KubeConfig, file: string): string | undefined {
  const raw = Bun.YAML.parse(readFileSync(file, "utf8")) as {
    users?: readonly { name?: string; user?: { tokenFile?: unknown } }[];
  };
  const name = kc.getCurrentUser()?.name;
  const path = raw.users?.find((u) => u.name === name)?.user?.tokenFile;
  return typeof path === "string" && path !== "" ? resolve(dirname(file), path) : undefined;
}

/**
 * As client-go's cached file token source: the token read from the file at each refresh, so a rotated
 * token is picked up, and the last one read while the file cannot be. Unreadable at start, it is an
 * error then, as client-go's is.
 */
function fileAuthorization(path: string): () => Promise<string | undefined> {
  const read = (): string => `Bearer ${readFileSync(path, "utf8").trim()}`;
  let last = read();
  return () => {
    try {
      last = read();
    } catch {
      // kept: the last token read
    }
    return Promise.resolve(last);
  };
}

/** The Authorization header the kubeconfig's current user sends now (tokens and exec plugins re-read). */
async function kubeconfigAuthorization(kc: KubeConfig): Promise<string | undefined> {
  const opts: RequestOptions = {};
  await kc.applyToHTTPSOptions(opts);
  const headers = (opts.headers ?? {}) as Record<string, string | undefined>;
  return headers.Authorization ?? headers.authorization;
}

function text(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (Buffer.isBuffer(value)) return value.toString("utf8");
  if (Array.isArray(value)) return value.map((v) => text(v) ?? "").join("\n");
  return typeof value === "string" ? value : undefined;
}
