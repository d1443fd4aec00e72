/**
 * The secure port (upstream 10258): `/healthz`, `/livez`, `/readyz` and `/metrics` over TLS, behind
 * delegated authentication and authorization. Serving starts before leader election, so standbys report
 * health and metrics too.
 */
import type { Server } from "bun";
import type { ServingConfig } from "../config/config.ts";
import type { Logger } from "../log/logger.ts";
import type { HealthRegistry } from "./health.ts";
import type { Verdict } from "./auth.ts";
import { loadServingCert } from "./tls.ts";

export interface SecureServerDeps {
  readonly config: ServingConfig;
  readonly logger: Logger;
  readonly health: HealthRegistry;
  readonly authorize: (req: Request, path: string) => Promise<Verdict>;
  /** Prometheus text exposition of every metric. */
  readonly metrics: () => Promise<{ contentType: string; body: string }>;
  readonly hostname: string;
}

const HEALTH_ENDPOINTS = ["/healthz", "/livez", "/readyz"];

async function route(deps: SecureServerDeps, req: Request): Promise<Response> {
  const url = new URL(req.url);
  const path = url.pathname;
  const verdict = await deps.authorize(req, path);
  if (!verdict.allowed) return new Response(`${verdict.reason}\n`, { status: verdict.status, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  const health = HEALTH_ENDPOINTS.find((e) => path === e || path.startsWith(`${e}/`));
  if (health) return deps.health.handle(health, url);
  if (path === "/metrics") {
    const { contentType, body } = await deps.metrics();
    return new Response(body, { headers: { "Content-Type": contentType } });
  }
  return new Response("404 page not found\n", { status: 404 });
}

export function startSecureServer(deps: SecureServerDeps): Server<undefined> {
  const { config } = deps;
  const tls = loadServingCert({ ...config, hostname: deps.hostname });
  const server = Bun.serve({
    hostname: config.bindAddress,
    port: config.securePort,
    reusePort: config.permitPortSharing,
    tls: { cert: tls.cert, key: tls.key },
    fetch: (req) =>
      route(deps, req).catch((error: unknown) => {
        deps.logger.error(`serving ${req.method} ${req.url} failed: ${(error as Error).message}`);
        return new Response("internal server error\n", { status: 500 });
      }),
  });
  deps.logger.info(`serving securely on ${config.bindAddress}:${server.port} (certificate: ${tls.source})`);
  return server;
}
