/**
 * Named health checks and the `/healthz` `/livez` `/readyz` handlers, with upstream's conventions and
 * words (apiserver's healthz): `/<endpoint>/<check>` runs one check and says why it fails, `?verbose`
 * lists every check, `?exclude=<name>` skips one; the list withholds the reasons ("this endpoint is
 * public"), which only the single check's path gives.
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
      const names = namesFor(endpoint);
      let failed = false;
      const lines = names.map((name) => {
        if (excluded.has(name)) return `[+]${name} excluded: ok`;
        const healthy = safely(checks.get(name)) === undefined;
        observe(type, name, healthy);
        failed ||= !healthy;
        return healthy ? `[+]${name} ok` : `[-]${name} failed: reason withheld`;
      });
      lines.push(...unmatched(excluded, names));
      const headers = { "Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff" };
      if (failed) return new Response(`${lines.join("\n")}\n${type} check failed\n`, { status: 500, headers });
      if (!url.searchParams.has("verbose")) return new Response("ok", { headers });
      return new Response(`${lines.join("\n")}\n${type} check passed\n`, { headers });
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

/** Upstream's line for `?exclude=` names that match no check. */
function unmatched(excluded: ReadonlySet<string>, names: readonly string[]): string[] {
  const unknown = [...excluded].filter((n) => !names.includes(n)).sort();
  if (unknown.length === 0) return [];
  return [`warn: some health checks cannot be excluded: no matches for ${unknown.map((n) => `"${n}"`).join(",")}`];
}

function single(check: Check | undefined, name: string, observe: (healthy: boolean) => void): Response {
  if (!check) return new Response(`no such check: ${name}\n`, { status: 404 });
  const failure = safely(check);
  observe(failure === undefined);
  if (failure === undefined) return new Response("ok");
  return new Response(`internal server error: ${failure}\n`, { status: 500 });
}
