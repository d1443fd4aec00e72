/**
 * Upstream's `--tls-*` values (Go's names) → the TLS library's settings for the secure port. Every
 * value is checked against the runtime's TLS library here, so one it cannot honour is a start-up
 * error naming it rather than a setting silently dropped. As in Go, TLS 1.3 suites are always on and
 * not configurable: naming them is accepted.
 */
import { createSecureContext } from "node:tls";
import type { SniCertKey } from "./config.ts";

export interface TlsFlags {
  readonly minVersion: string;
  readonly cipherSuites: readonly string[];
  readonly curvePreferences: readonly string[];
}

export interface TlsSettings {
  readonly minVersion: "TLSv1" | "TLSv1.1" | "TLSv1.2" | "TLSv1.3";
  /** OpenSSL cipher list for TLS ≤ 1.2; undefined: the runtime's defaults. */
  readonly ciphers: string | undefined;
  /** Colon-separated groups in preference order; undefined: the runtime's defaults. */
  readonly ecdhCurve: string | undefined;
}

const VERSIONS: Readonly<Record<string, TlsSettings["minVersion"]>> = {
  "": "TLSv1.2",
  VersionTLS10: "TLSv1",
  VersionTLS11: "TLSv1.1",
  VersionTLS12: "TLSv1.2",
  VersionTLS13: "TLSv1.3",
};

/** Go's (IANA) suite names → OpenSSL's; TLS 1.3 suites map to "" (always enabled, as in Go). */
const SUITES: Readonly<Record<string, string>> = {
  TLS_AES_128_GCM_SHA256: "",
  TLS_AES_256_GCM_SHA384: "",
  TLS_CHACHA20_POLY1305_SHA256: "",
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: "ECDHE-ECDSA-AES128-GCM-SHA256",
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: "ECDHE-RSA-AES128-GCM-SHA256",
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: "ECDHE-ECDSA-AES256-GCM-SHA384",
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: "ECDHE-RSA-AES256-GCM-SHA384",
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305: "ECDHE-ECDSA-CHACHA20-POLY1305",
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: "ECDHE-ECDSA-CHACHA20-POLY1305",
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305: "ECDHE-RSA-CHACHA20-POLY1305",
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: "ECDHE-RSA-CHACHA20-POLY1305",
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: "ECDHE-ECDSA-AES128-SHA",
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: "ECDHE-RSA-AES128-SHA",
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: "ECDHE-ECDSA-AES256-SHA",
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: "ECDHE-RSA-AES256-SHA",
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256: "ECDHE-ECDSA-AES128-SHA256",
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256: "ECDHE-RSA-AES128-SHA256",
  TLS_RSA_WITH_AES_128_GCM_SHA256: "AES128-GCM-SHA256",
  TLS_RSA_WITH_AES_256_GCM_SHA384: "AES256-GCM-SHA384",
  TLS_RSA_WITH_AES_128_CBC_SHA: "AES128-SHA",
  TLS_RSA_WITH_AES_256_CBC_SHA: "AES256-SHA",
  TLS_RSA_WITH_AES_128_CBC_SHA256: "AES128-SHA256",
  TLS_RSA_WITH_3DES_EDE_CBC_SHA: "DES-CBC3-SHA",
  TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA: "ECDHE-RSA-DES-CBC3-SHA",
  TLS_RSA_WITH_RC4_128_SHA: "RC4-SHA",
  TLS_ECDHE_RSA_WITH_RC4_128_SHA: "ECDHE-RSA-RC4-SHA",
  TLS_ECDHE_ECDSA_WITH_RC4_128_SHA: "ECDHE-ECDSA-RC4-SHA",
};

/** Go's curve names and TLS group IDs → OpenSSL group names. */
const CURVES: Readonly<Record<string, string>> = {
  CurveP256: "P-256",
  "P-256": "P-256",
  "23": "P-256",
  CurveP384: "P-384",
  "P-384": "P-384",
  "24": "P-384",
  CurveP521: "P-521",
  "P-521": "P-521",
  "25": "P-521",
  X25519: "X25519",
  "29": "X25519",
  X25519MLKEM768: "X25519MLKEM768",
  "4588": "X25519MLKEM768",
};

function accepted(options: Parameters<typeof createSecureContext>[0]): boolean {
  try {
    createSecureContext(options);
    return true;
  } catch {
    return false;
  }
}

function ciphers(errors: string[], names: readonly string[], flag: string): string | undefined {
  const out: string[] = [];
  for (const name of names) {
    const openssl = SUITES[name];
    if (openssl === undefined)
      errors.push(
        `${flag}: unknown cipher suite ${JSON.stringify(name)} (Go names such as TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256)`,
      );
    else if (openssl !== "" && !accepted({ ciphers: openssl }))
      errors.push(`${flag}: ${name} is not supported by this runtime's TLS library`);
    else if (openssl !== "") out.push(openssl);
  }
  return out.length > 0 ? out.join(":") : undefined;
}

function curves(errors: string[], names: readonly string[], flag: string): string | undefined {
  const out: string[] = [];
  for (const name of names) {
    const group = CURVES[name];
    if (group === undefined)
      errors.push(
        `${flag}: unknown curve ${JSON.stringify(name)} (CurveP256, CurveP384, CurveP521, X25519, X25519MLKEM768 or their IDs)`,
      );
    else if (!accepted({ ecdhCurve: group }))
      errors.push(`${flag}: ${name} is not supported by this runtime's TLS library`);
    else out.push(group);
  }
  return out.length > 0 ? out.join(":") : undefined;
}

/** The settings, or one error per value that cannot take effect; `prefix` names the flags (`--webhook-tls-`). */
export function resolveTls(
  flags: TlsFlags,
  prefix = "--tls-",
): { ok: true; settings: TlsSettings } | { ok: false; errors: string[] } {
  const errors: string[] = [];
  const minVersion = VERSIONS[flags.minVersion];
  if (!minVersion)
    errors.push(
      `${prefix}min-version: ${JSON.stringify(flags.minVersion)} is not one of VersionTLS10, VersionTLS11, VersionTLS12, VersionTLS13`,
    );
  const settings = {
    minVersion: minVersion ?? "TLSv1.2",
    ciphers: ciphers(errors, flags.cipherSuites, `${prefix}cipher-suites`),
    ecdhCurve: curves(errors, flags.curvePreferences, `${prefix}curve-preferences`),
  };
  return errors.length > 0 ? { ok: false, errors } : { ok: true, settings };
}

export type { SniCertKey };

export function parseSniCertKey(value: string, flag = "--tls-sni-cert-key"): SniCertKey | string {
  const colon = value.indexOf(":");
  const files = (colon < 0 ? value : value.slice(0, colon)).split(",").map((f) => f.trim());
  const names =
    colon < 0
      ? []
      : value
          .slice(colon + 1)
          .split(",")
          .map((n) => n.trim())
          .filter((n) => n !== "");
  if (files.length !== 2 || files.some((f) => f === ""))
    return `${flag}: ${JSON.stringify(value)} is not certfile,keyfile or certfile,keyfile:name,…`;
  return { certFile: files[0]!, keyFile: files[1]!, names };
}

/** Whether a TLS server name matches a certificate name (`*.example.com` covers one label). */
export function sniMatches(pattern: string, serverName: string): boolean {
  const p = pattern.toLowerCase();
  const name = serverName.toLowerCase();
  if (!p.startsWith("*.")) return p === name;
  const dot = name.indexOf(".");
  return dot > 0 && name.slice(dot) === p.slice(1);
}
