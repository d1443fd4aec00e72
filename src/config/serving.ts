/**
 * The secure port's flags: address, certificates, TLS settings (checked against the runtime's TLS
 * library here, so a value it cannot honour is one start-up line naming it), client-certificate and
 * request-header authentication, and the webhook flags upstream has (no webhooks are served; their
 * values are still checked so a typo does not pass silently).
 */
import type { ClientAuthFlags, ServingConfig } from "./config.ts";
import type { FlagReader } from "./flag-reader.ts";
import { parseIP } from "../net/ip.ts";
import { parseSniCertKey, resolveTls, type SniCertKey, type TlsFlags } from "./tls-options.ts";

export function readServing(r: FlagReader): ServingConfig {
  const bindAddress = readIP(r, "bind-address");
  const securePort = r.int("secure-port", 0, 65535);
  const tls = readTls(r, "tls-");
  const serving = {
    bindAddress,
    securePort,
    certDir: r.text("cert-dir"),
    tlsCertFile: r.text("tls-cert-file"),
    tlsPrivateKeyFile: r.text("tls-private-key-file"),
    tlsMinVersion: tls.minVersion,
    tlsCipherSuites: tls.cipherSuites,
    tlsCurvePreferences: tls.curvePreferences,
    sniCertKeys: tls.sniCertKeys,
    permitPortSharing: r.bool("permit-port-sharing"),
    clientAuth: readClientAuth(r),
    authenticationKubeconfig: r.text("authentication-kubeconfig"),
    authenticationCacheTtlMs: r.duration("authentication-token-webhook-cache-ttl"),
    authorizationKubeconfig: r.text("authorization-kubeconfig"),
    alwaysAllowPaths: readAllowPaths(r),
    authorizedTtlMs: r.duration("authorization-webhook-cache-authorized-ttl"),
    unauthorizedTtlMs: r.duration("authorization-webhook-cache-unauthorized-ttl"),
  };
  if ((serving.tlsCertFile === "") !== (serving.tlsPrivateKeyFile === "")) {
    const given = serving.tlsCertFile === "" ? "tls-private-key-file" : "tls-cert-file";
    r.fail(given, "--tls-cert-file and --tls-private-key-file must be given together");
  }
  readCompatServing(r, securePort);
  return serving;
}

/** An IP flag as pflag's: an empty value leaves the default. */
function readIP(r: FlagReader, name: string): string {
  const value = r.text(name) === "" ? r.defaultOf(name) : r.text(name);
  if (!parseIP(value)) r.fail(name, "must be an IP address");
  return value;
}

/**
 * `--authorization-always-allow-paths` as upstream's path authorizer reads it: the leading `/` optional
 * (`healthz` is `/healthz`), `*` only at the end (a prefix).
 */
function readAllowPaths(r: FlagReader): string[] {
  const paths = r.list("authorization-always-allow-paths").map((p) => `/${p.replace(/^\//, "")}`);
  const starred = paths.find((p) => p.slice(0, -1).includes("*"));
  if (starred) r.fail("authorization-always-allow-paths", `only trailing * allowed in ${JSON.stringify(starred)}`);
  return paths;
}

/** `--tls-*` or `--webhook-tls-*`: the values, each error naming its own flag. */
function readTls(r: FlagReader, prefix: "tls-" | "webhook-tls-"): TlsFlags & { sniCertKeys: SniCertKey[] } {
  const flags = {
    minVersion: r.text(`${prefix}min-version`),
    cipherSuites: r.list(`${prefix}cipher-suites`),
    curvePreferences: r.list(`${prefix}curve-preferences`),
  };
  const resolved = resolveTls(flags, `--${prefix}`);
  if (!resolved.ok) r.errors.push(...resolved.errors);
  const sniCertKeys: SniCertKey[] = [];
  for (const value of r.occurrences(`${prefix}sni-cert-key`)) {
    const parsed = parseSniCertKey(value, `--${prefix}sni-cert-key`);
    if (typeof parsed === "string") r.errors.push(parsed);
    else sniCertKeys.push(parsed);
  }
  return { ...flags, sniCertKeys };
}

function readClientAuth(r: FlagReader): ClientAuthFlags {
  return {
    clientCAFile: r.text("client-ca-file"),
    requestHeaderClientCAFile: r.text("requestheader-client-ca-file"),
    requestHeaderAllowedNames: r.list("requestheader-allowed-names"),
    requestHeaderUsernameHeaders: r.list("requestheader-username-headers"),
    requestHeaderUIDHeaders: r.list("requestheader-uid-headers"),
    requestHeaderGroupHeaders: r.list("requestheader-group-headers"),
    requestHeaderExtraHeadersPrefix: r.list("requestheader-extra-headers-prefix"),
    skipLookup: r.bool("authentication-skip-lookup"),
    tolerateLookupFailure: r.bool("authentication-tolerate-lookup-failure"),
  };
}

/**
 * Compatibility flags still get their syntax checked, so a typo is not silently accepted; the webhook
 * ones as upstream's webhook options: no webhook is known, and the webhook port is not the secure one.
 */
function readCompatServing(r: FlagReader, securePort: number): void {
  r.int("http2-max-streams-per-connection", 0);
  r.bool("disable-http2-serving");
  r.bool("permit-address-sharing");
  for (const webhook of r.list("webhooks").map((w) => w.replace(/^-/, "")))
    if (webhook !== "*") r.fail("webhooks", `${JSON.stringify(webhook)} is not in the list of known webhooks`);
  readIP(r, "webhook-bind-address");
  const webhookPort = r.int("webhook-secure-port", 0, 65535);
  if (webhookPort !== 0 && webhookPort === securePort)
    r.fail("webhook-secure-port", "--webhook-secure-port cannot be the same value as --secure-port");
  r.bool("webhook-disable-http2-serving");
  readTls(r, "webhook-tls-");
  r.duration("min-resync-period");
  r.bool("profiling");
  r.bool("contention-profiling");
  r.bool("enable-leader-migration");
}
