/**
 * The secure port's files, checked before anything starts so a missing or broken one is one line
 * naming the flag and the file (exit 2), not an error after the start banner: the serving pair (each
 * file readable, the certificate parses, the key matches it), the SNI pairs, and the client and
 * request-header CA bundles (at least one certificate each).
 */
import { X509Certificate, createPrivateKey, type KeyObject } from "node:crypto";
import { readFileSync } from "node:fs";
import { parseBundle } from "./client-auth.ts";
import type { SniCertKey } from "../config/tls-options.ts";

export interface ServingFiles {
  readonly tlsCertFile: string;
  readonly tlsPrivateKeyFile: string;
  readonly sniCertKeys: readonly SniCertKey[];
  readonly clientCAFile: string;
  readonly requestHeaderClientCAFile: string;
}

type Read<T> = { value: T } | { error: string };

function read<T>(flag: string, file: string, parse: (text: string) => T, what: string): Read<T> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as { code?: string }).code;
    return { error: `${flag}: cannot read ${JSON.stringify(file)}${code ? ` (${code})` : ""}` };
  }
  try {
    return { value: parse(text) };
  } catch {
    return { error: `${flag}: ${JSON.stringify(file)} is not ${what}` };
  }
}

function pairProblems(certFlag: string, certFile: string, keyFlag: string, keyFile: string): string[] {
  const cert = read(certFlag, certFile, (t) => new X509Certificate(t), "a PEM certificate");
  const key = read(keyFlag, keyFile, (t): KeyObject => createPrivateKey(t), "a PEM private key");
  const errors = [cert, key].flatMap((r) => ("error" in r ? [r.error] : []));
  if (errors.length > 0 || !("value" in cert) || !("value" in key)) return errors;
  return cert.value.checkPrivateKey(key.value)
    ? []
    : [`${keyFlag}: ${JSON.stringify(keyFile)} does not match the certificate in ${JSON.stringify(certFile)}`];
}

function bundleProblems(flag: string, file: string): string[] {
  const bundle = read(
    flag,
    file,
    (t) => {
      const certs = parseBundle(t);
      if (certs.length === 0) throw new Error("empty");
      return certs;
    },
    "a PEM bundle of CA certificates",
  );
  return "error" in bundle ? [bundle.error] : [];
}

/** One line per problem, each naming its flag and file. */
export function servingFileProblems(f: ServingFiles): string[] {
  return [
    ...(f.tlsCertFile !== "" && f.tlsPrivateKeyFile !== ""
      ? pairProblems("--tls-cert-file", f.tlsCertFile, "--tls-private-key-file", f.tlsPrivateKeyFile)
      : []),
    ...f.sniCertKeys.flatMap((s) => pairProblems("--tls-sni-cert-key", s.certFile, "--tls-sni-cert-key", s.keyFile)),
    ...(f.clientCAFile !== "" ? bundleProblems("--client-ca-file", f.clientCAFile) : []),
    ...(f.requestHeaderClientCAFile !== ""
      ? bundleProblems("--requestheader-client-ca-file", f.requestHeaderClientCAFile)
      : []),
  ];
}
