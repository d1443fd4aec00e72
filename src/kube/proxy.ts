/**
 * The proxy client-go would use for the API server: the kubeconfig cluster's `proxy-url`, else the
 * environment as Go's `httpproxy.FromEnvironment` reads it (HTTPS_PROXY for https, HTTP_PROXY for http,
 * upper case before lower, NO_PROXY exempting hosts, and never a proxy for localhost or a loopback IP).
 */
import { isIP } from "node:net";

export type Environment = Readonly<Record<string, string | undefined>>;

/** The proxy URL for requests to `server`, or undefined for a direct connection. */
export function proxyFor(server: string, kubeconfigProxy: string | undefined, env: Environment): string | undefined {
  if (kubeconfigProxy) return kubeconfigProxy;
  const url = URL.parse(server);
  if (url === null) return undefined;
  const https = url.protocol === "https:";
  const proxy = variable(env, https ? "HTTPS_PROXY" : "HTTP_PROXY");
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (!proxy || isLoopback(host)) return undefined;
  const port = url.port || (https ? "443" : "80");
  return exempt(variable(env, "NO_PROXY") ?? "", host, port) ? undefined : proxy;
}

function variable(env: Environment, name: string): string | undefined {
  return env[name] || env[name.toLowerCase()] || undefined;
}

function isLoopback(host: string): boolean {
  if (host === "localhost") return true;
  if (isIP(host) === 4) return host.startsWith("127.");
  return isIP(host) === 6 && /^(0*:)*:?0*1$/.test(host);
}

/** Whether a NO_PROXY entry matches: `*`, an IP, a CIDR, or a domain (leading dot or not), maybe with a port. */
function exempt(noProxy: string, host: string, port: string): boolean {
  for (const raw of noProxy.split(",")) {
    const entry = raw.trim().toLowerCase();
    if (entry === "") continue;
    if (entry === "*") return true;
    if (entry.includes("/")) {
      if (inCidr(host, entry)) return true;
      continue;
    }
    const { name, entryPort } = splitPort(entry);
    if (entryPort !== undefined && entryPort !== port) continue;
    if (matchesName(host, name)) return true;
  }
  return false;
}

function splitPort(entry: string): { name: string; entryPort: string | undefined } {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  if (bracketed) return { name: bracketed[1] ?? "", entryPort: bracketed[2] };
  if (isIP(entry) === 6) return { name: entry, entryPort: undefined };
  const match = /^(.*?)(?::(\d+))?$/.exec(entry);
  return { name: match?.[1] ?? entry, entryPort: match?.[2] };
}

function matchesName(host: string, name: string): boolean {
  if (isIP(name) !== 0) return host === name;
  const bare = name.replace(/^\*?\./, "");
  return host === bare || host.endsWith(`.${bare}`);
}

function inCidr(host: string, cidr: string): boolean {
  const [base = "", bitsText = ""] = cidr.split("/");
  const bits = Number(bitsText);
  if (isIP(host) !== 4 || isIP(base) !== 4 || !Number.isInteger(bits) || bits < 0 || bits > 32) return false;
  const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
  return (ipv4(host) & mask) >>> 0 === (ipv4(base) & mask) >>> 0;
}

function ipv4(text: string): number {
  return text.split(".").reduce((n, part) => ((n << 8) | Number(part)) >>> 0, 0);
}
