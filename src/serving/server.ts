/**
 * The secure port (upstream 10258): `/healthz`, `/livez`, `/readyz`, `/metrics`, `/metrics/slis` and
 * `/configz` over TLS, behind delegated authentication and authorization. Serving starts before leader
 * election, so standbys report health and metrics too.
 *
 * Built on `node:tls` with `node:http` over it (not `Bun.serve`): only the TLS socket exposes the
 * client's certificate chain, which client-certificate and request-header authentication need, and it
 * takes upstream's TLS knobs (minimum version, cipher suites, curves, SNI certificates).
 */
import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import {
  createSecureContext,
  createServer as createTlsServer,
  type PeerCertificate,
  type SecureContext,
  type Server as TlsServer,
  type TLSSocket,
} from "node:tls";
import type { ServingConfig } from "../config/config.ts";
import type { Logger } from "../log/logger.ts";
import type { Verdict } from "./auth.ts";
import type { PeerRequest } from "./client-auth.ts";
import type { HealthRegistry } from "./health.ts";
import { loadServingCert } from "./tls.ts";
import { sniMatches, type SniCertKey, type TlsSettings } from "../config/tls-options.ts";

export interface SecureServerDeps {
  readonly config: ServingConfig;
  readonly tls: TlsSettings;
  readonly sniCertKeys: readonly SniCertKey[];
  /** PEM bundles of every CA a client certificate may chain to (client CA and request-header CA). */
  readonly clientCAs: () => readonly string[];
  readonly logger: Logger;
  readonly health: HealthRegistry;
  readonly authorize: (req: Request, path: string, peer: PeerRequest) => Promise<Verdict>;
  /** Served paths beyond the health endpoints: `/metrics`, `/metrics/slis`, `/configz`. */
  readonly handlers: Readonly<Record<string, () => Promise<{ contentType: string; body: string }>>>;
  readonly hostname: string;
}

export interface SecureServer {
  readonly port: number;
  stop(): Promise<void>;
}

const HEALTH_ENDPOINTS = ["/healthz", "/livez", "/readyz"];
const TEXT = { "Content-Type": "text/plain; charset=utf-8" };

async function route(deps: SecureServerDeps, req: Request, peer: PeerRequest): Promise<Response> {
  const url = new URL(req.url);
  const path = url.pathname;
  const verdict = await deps.authorize(req, path, peer);
  if (!verdict.allowed) return new Response(`${verdict.reason}\n`, { status: verdict.status, headers: TEXT });
  const health = HEALTH_ENDPOINTS.find((e) => path === e || path.startsWith(`${e}/`));
  if (health) return deps.health.handle(health, url);
  const handler = deps.handlers[path];
  if (!handler) return new Response("404 page not found\n", { status: 404, headers: TEXT });
  const { contentType, body } = await handler();
  return new Response(body, { headers: { "Content-Type": contentType } });
}

/** The chain the client sent, leaf first. */
function peerChain(socket: TLSSocket): X509Certificate[] {
  const chain: X509Certificate[] = [];
  let cert: (PeerCertificate & { issuerCertificate?: PeerCertificate }) | undefined = socket.getPeerCertificate(true);
  while (cert?.raw && chain.length < 8) {
    chain.push(new X509Certificate(cert.raw));
    cert = cert.issuerCertificate === cert ? undefined : cert.issuerCertificate;
  }
  return chain;
}

function headerMap(raw: readonly string[]): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    map.set(name, [...(map.get(name) ?? []), raw[i + 1]!]);
  }
  return map;
}

async function serve(deps: SecureServerDeps, incoming: IncomingMessage, out: ServerResponse): Promise<void> {
  const headers = new Headers();
  for (let i = 0; i + 1 < incoming.rawHeaders.length; i += 2)
    headers.append(incoming.rawHeaders[i]!, incoming.rawHeaders[i + 1]!);
  const req = new Request(`https://${deps.hostname}${incoming.url ?? "/"}`, { method: incoming.method, headers });
  const peer: PeerRequest = { chain: peerChain(incoming.socket as TLSSocket), headers: headerMap(incoming.rawHeaders) };
  const response = await route(deps, req, peer).catch((error: unknown) => {
    deps.logger.error(`serving ${incoming.method} ${incoming.url} failed: ${(error as Error).message}`);
    return new Response("internal server error\n", { status: 500, headers: TEXT });
  });
  out.writeHead(response.status, Object.fromEntries(response.headers));
  out.end(incoming.method === "HEAD" ? undefined : Buffer.from(await response.arrayBuffer()));
}

function sniContexts(deps: SecureServerDeps): { names: readonly string[]; context: SecureContext }[] {
  return deps.sniCertKeys.map((s) => {
    const cert = readFileSync(s.certFile, "utf8");
    const x509 = new X509Certificate(cert);
    const own = [...(x509.subjectAltName ?? "").matchAll(/DNS:([^,\s]+)/g)].map((m) => m[1]!);
    const cn = /CN=([^\n]+)/.exec(x509.subject)?.[1];
    const names = s.names.length > 0 ? s.names : [...own, ...(cn && own.length === 0 ? [cn] : [])];
    return {
      names,
      context: createSecureContext({
        cert,
        key: readFileSync(s.keyFile, "utf8"),
        minVersion: deps.tls.minVersion,
        ciphers: deps.tls.ciphers,
        ecdhCurve: deps.tls.ecdhCurve,
      }),
    };
  });
}

export async function startSecureServer(deps: SecureServerDeps): Promise<SecureServer> {
  const { config } = deps;
  const pair = loadServingCert({ ...config, hostname: deps.hostname });
  const http = createHttpServer((incoming, out) => void serve(deps, incoming, out));
  const sni = sniContexts(deps);
  const cas = deps.clientCAs();
  const sockets = new Set<TLSSocket>();
  const server = createTlsServer(
    {
      cert: pair.cert,
      key: pair.key,
      minVersion: deps.tls.minVersion,
      ...(deps.tls.ciphers ? { ciphers: deps.tls.ciphers } : {}),
      ...(deps.tls.ecdhCurve ? { ecdhCurve: deps.tls.ecdhCurve } : {}),
      // Certificates are asked for and checked per CA set by the authenticators; none is required.
      ...(cas.length > 0 ? { requestCert: true, rejectUnauthorized: false, ca: [...cas] } : {}),
      ALPNProtocols: ["http/1.1"],
      SNICallback: (name, done) => done(null, sni.find((s) => s.names.some((n) => sniMatches(n, name)))?.context),
    },
    (socket) => {
      sockets.add(socket);
      socket.once("close", () => sockets.delete(socket));
      http.emit("connection", socket);
    },
  );
  await listenOnAll(server, config).catch((error: unknown) => {
    // Upstream's words, with the address as the flags gave it (the socket reports `::` for 0.0.0.0).
    const where = `${config.bindAddress.includes(":") ? `[${config.bindAddress}]` : config.bindAddress}:${config.securePort}`;
    const why = error instanceof Error ? error.message : String(error);
    throw new Error(`failed to listen on ${where} (--bind-address, --secure-port): ${why}`, { cause: error });
  });
  const port = (server.address() as { port: number }).port;
  deps.logger.info(
    `serving securely on ${config.bindAddress}:${port} (certificate: ${pair.source}${sni.length > 0 ? `, ${sni.length} SNI certificate(s)` : ""}${cas.length > 0 ? ", client certificates accepted" : ""})`,
  );
  return {
    port,
    // Idle keep-alive connections would hold `close` open: the port stops with its connections.
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}

/**
 * As Go's listener, which upstream's is: an unspecified address (0.0.0.0 or ::) takes every interface of
 * both families (a `::` socket that takes IPv4 too), or IPv4 alone where the host has no IPv6.
 */
async function listenOnAll(server: TlsServer, config: ServingConfig): Promise<void> {
  const unspecified = config.bindAddress === "0.0.0.0" || config.bindAddress === "::";
  const listen = (host: string): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen({ host, port: config.securePort, reusePort: config.permitPortSharing }, () => {
        server.off("error", reject);
        resolve();
      });
    });
  if (!unspecified) return listen(config.bindAddress);
  try {
    await listen("::");
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code !== "EAFNOSUPPORT" && code !== "EADDRNOTAVAIL") throw error;
    await listen("0.0.0.0");
  }
}
