/**
 * Named health checks and the `/healthz` `/livez` `/readyz` handlers, with upstream's conventions:
 * `/<endpoint>/<check>` runs one check, `?verbose` lists every check, `?exclude=<name>` skips one.
 */
export type Check = () => string | undefined;

export interface HealthRegistry {
  /** Registers a check; it returns undefined when healthy, else the reason. */
  add(name: string, check: Check): void;
  handle(endpoint: string, url: URL): Response;
  /** Every check's current result (undefined when healthy). */
  snapshot(): Record<string, string | undefined>;
}

/** Which checks an endpoint runs: every one, or those its filter keeps. */
export type EndpointChecks = "all" | ((name: string) => boolean);

/** Told the result of every check an endpoint runs (`/metrics/slis`). */
export type CheckObserver = (endpoint: string, name: string, healthy: boolean) => void;

export function createHealthRegistry(
  endpoints: Readonly<Record<string, EndpointChecks>>,
  observe: CheckObserver = () => undefined,
): HealthRegistry {
  const checks = new Map<string, Check>();
  const namesFor = (endpoint: string): string[] => {
    const wanted = endpoints[endpoint] ?? "all";
    return wanted === "all" ? [...checks.keys()] : [...checks.keys()].filter(wanted);
  };
  return {
    add(name, check) {
      checks.set(name, check);
    },
    snapshot() {
      return Object.fromEntries([...checks].map(([name, check]) => [name, safely(check)]));
    },
    handle(endpoint, url) {
      const rest = url.pathname.slice(endpoint.length + 1).replace(/^\//, "");
      const type = endpoint.slice(1);
      if (rest !== "") return single(checks.get(rest), rest, (healthy) => observe(type, rest, healthy));
      const excluded = new Set(url.searchParams.getAll("exclude"));
      const results = namesFor(endpoint)
        .filter((n) => !excluded.has(n))
        .map((name) => ({ name, failure: safely(checks.get(name)) }));
      for (const r of results) observe(type, r.name, r.failure === undefined);
      const failed = results.filter((r) => r.failure !== undefined);
      const verbose = url.searchParams.has("verbose") || failed.length > 0;
      const body = verbose
        ? [
            ...results.map((r) => (r.failure === undefined ? `[+]${r.name} ok` : `[-]${r.name} failed: ${r.failure}`)),
            failed.length > 0 ? `${endpoint} check failed` : `${endpoint} check passed`,
          ].join("\n")
        : "ok";
      return new Response(`${body}\n`, {
        status: failed.length > 0 ? 500 : 200,
        headers: { "Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff" },
      });
    },
  };
}

function safely(check: Check | undefined): string | undefined {
  try {
    return check?.();
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

function single(check: Check | undefined, name: string, observe: (healthy: boolean) => void): Response {
  if (!check) return new Response(`no such check: ${name}\n`, { status: 404 });
  const failure = safely(check);
  observe(failure === undefined);
  return new Response(failure === undefined ? "ok\n" : `internal server error: ${failure}\n`, {
    status: failure === undefined ? 200 : 500,
  });
}
