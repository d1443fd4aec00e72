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
  const bindAddress = r.text("bind-address");
  if (!parseIP(bindAddress)) r.fail("bind-address", "must be an IP address");
  const securePort = r.int("secure-port", 0);
  if (securePort > 65535) r.fail("secure-port", "must be at most 65535");
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
    alwaysAllowPaths: r.list("authorization-always-allow-paths"),
    authorizedTtlMs: r.duration("authorization-webhook-cache-authorized-ttl"),
    unauthorizedTtlMs: r.duration("authorization-webhook-cache-unauthorized-ttl"),
  };
  if ((serving.tlsCertFile === "") !== (serving.tlsPrivateKeyFile === "")) {
    r.fail("tls-cert-file", "--tls-cert-file and --tls-private-key-file must be given together");
  }
  readCompatServing(r);
  return serving;
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

/** Compatibility flags still get their syntax checked, so a typo is not silently accepted. */
function readCompatServing(r: FlagReader): void {
  r.int("http2-max-streams-per-connection", 0);
  r.bool("disable-http2-serving");
  r.bool("permit-address-sharing");
  r.int("webhook-secure-port", 0);
  r.bool("webhook-disable-http2-serving");
  readTls(r, "webhook-tls-");
  r.duration("min-resync-period");
  r.bool("profiling");
  r.bool("contention-profiling");
  r.bool("enable-leader-migration");
}
