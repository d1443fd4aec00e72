/**
 * The proxy client-go would use for the API server: the kubeconfig cluster's `proxy-url`, else the
 * environment as Go's `httpproxy.FromEnvironment` reads it (HTTPS_PROXY for https, HTTP_PROXY for http,
 * upper case before lower, NO_PROXY exempting hosts, and never a proxy for localhost or a loopback IP).
 */
import { cidrContains, ipEqual, parseCIDR, parseIP, type IP } from "../net/ip.ts";

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

const LOOPBACK_V4 = parseCIDR("127.0.0.0/8")!;
const LOOPBACK_V6 = parseIP("::1")!;

function isLoopback(host: string): boolean {
  if (host === "localhost") return true;
  const ip = parseIP(host);
  return ip !== undefined && (cidrContains(LOOPBACK_V4, ip) || ipEqual(LOOPBACK_V6, ip));
}

/** Whether NO_PROXY names the host: `*`, an IP, a CIDR, or a domain (leading dot or not), maybe with a port. */
function exempt(noProxy: string, host: string, port: string): boolean {
  const ip = parseIP(host);
  return noProxy.split(",").some((raw) => entryMatches(raw.trim().toLowerCase(), host, ip, port));
}

function entryMatches(entry: string, host: string, ip: IP | undefined, port: string): boolean {
  if (entry === "") return false;
  if (entry === "*") return true;
  if (entry.includes("/")) {
    const cidr = parseCIDR(entry);
    return cidr !== undefined && ip !== undefined && cidrContains(cidr, ip);
  }
  const { name, entryPort } = splitPort(entry);
  return (entryPort === undefined || entryPort === port) && matchesName(host, ip, name);
}

function splitPort(entry: string): { name: string; entryPort: string | undefined } {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  if (bracketed) return { name: bracketed[1] ?? "", entryPort: bracketed[2] };
  if (parseIP(entry)?.family === 6) return { name: entry, entryPort: undefined };
  const match = /^(.*?)(?::(\d+))?$/.exec(entry);
  return { name: match?.[1] ?? entry, entryPort: match?.[2] };
}

/** An IP entry names the same address (however it is written); a domain, the host or a subdomain of it. */
function matchesName(host: string, ip: IP | undefined, name: string): boolean {
  const entryIP = parseIP(name);
  if (entryIP) return ip !== undefined && ipEqual(entryIP, ip);
  const bare = name.replace(/^\*?\./, "");
  return host === bare || host.endsWith(`.${bare}`);
}
