/**
 * Resolves `--kubeconfig` / `--master` (or the in-cluster service account) once, with
 * `@kubernetes/client-node`'s loader, which understands every kubeconfig form (files or inline data,
 * tokens, token files, exec plugins). Main thread only: controller threads get the result (connection.ts).
 */
import { KubeConfig } from "@kubernetes/client-node";
import { readFileSync } from "node:fs";
import type { RequestOptions } from "node:https";
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
  const opts: RequestOptions = {};
  await kc.applyToHTTPSOptions(opts);
  const tls: TlsMaterial = {
    ca: text(opts.ca),
    cert: text(opts.cert),
    key: text(opts.key),
    rejectUnauthorized: cluster?.skipTLSVerify !== true,
    serverName: cluster?.tlsServerName,
  };
  const base = server.replace(/\/+$/, "");
  return {
    server: base,
    tls,
    proxy: proxyFor(base, cluster?.proxyUrl, source.env ?? {}),
    authorization: cachedAuthorization(() => kubeconfigAuthorization(kc)),
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
