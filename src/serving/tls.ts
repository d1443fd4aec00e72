/**
 * The serving certificate: `--tls-cert-file`/`--tls-private-key-file` when given; otherwise a self-signed
 * one for localhost / 127.0.0.1 (upstream's in-memory certificate), kept in `--cert-dir` as
 * `cloud-controller-manager.crt` / `.key` when that flag is set so restarts present the same one.
 */
import { createPrivateKey, X509Certificate } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { issueCertificate } from "../pki/x509.ts";

export interface ServingCert {
  readonly cert: string;
  readonly key: string;
  readonly source: string;
}

const PAIR = "cloud-controller-manager";

interface CertOptions {
  readonly tlsCertFile: string;
  readonly tlsPrivateKeyFile: string;
  readonly certDir: string;
  readonly hostname: string;
  readonly tlsCipherSuites: readonly string[];
}

export function loadServingCert(o: CertOptions): ServingCert {
  if (o.tlsCertFile !== "") {
    return {
      cert: readFileSync(o.tlsCertFile, "utf8"),
      key: readFileSync(o.tlsPrivateKeyFile, "utf8"),
      source: o.tlsCertFile,
    };
  }
  const keyType = selfSignedKeyType(o.tlsCipherSuites);
  if (o.certDir === "") return { ...selfSigned(o, keyType), source: "self-signed (in memory)" };
  const certFile = join(o.certDir, `${PAIR}.crt`);
  const keyFile = join(o.certDir, `${PAIR}.key`);
  if (existsSync(certFile) && existsSync(keyFile)) {
    const cert = readFileSync(certFile, "utf8");
    const key = readFileSync(keyFile, "utf8");
    // Kept across restarts, as upstream keeps any pair it finds there; only one of our own making is made
    // again when the cipher suites now need the other kind of key (an operator's pair is never replaced).
    if (!ownSelfSigned(cert) || createPrivateKey(key).asymmetricKeyType === keyType)
      return { cert, key, source: certFile };
  }
  const pair = selfSigned(o, keyType);
  try {
    mkdirSync(o.certDir, { recursive: true });
    writeFileSync(certFile, pair.cert);
    writeFileSync(keyFile, pair.key, { mode: 0o600 });
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new Error(`error creating self-signed certificates in --cert-dir ${JSON.stringify(o.certDir)}: ${why}`, {
      cause: error,
    });
  }
  return { ...pair, source: certFile };
}

const SELF_SIGNED_SUBJECT = /^CN=localhost@\d+$/;

/** A certificate `selfSigned` made (or upstream's, alike): issued to and by `localhost@<seconds>`. */
function ownSelfSigned(pem: string): boolean {
  try {
    const cert = new X509Certificate(pem);
    return SELF_SIGNED_SUBJECT.test(cert.subject) && cert.issuer === cert.subject;
  } catch {
    return false;
  }
}

/** Upstream's in-memory certificate: for localhost, the host's name, 127.0.0.1 and ::1. */
function selfSigned(o: CertOptions, keyType: "ec" | "rsa"): { cert: string; key: string } {
  const pair = issueCertificate({
    subject: { commonName: `localhost@${Math.floor(Date.now() / 1000)}` },
    serverAuth: true,
    dnsNames: ["localhost", o.hostname],
    ipAddresses: ["127.0.0.1", "::1"],
    keyType,
  });
  return { cert: pair.certPem, key: pair.keyPem };
}

/**
 * ECDSA, unless `--tls-cipher-suites` leaves TLS 1.2 only suites that authenticate with RSA (a hardening
 * list of `TLS_ECDHE_RSA_*`): then RSA 2048, the key upstream's self-signed certificate has, so TLS 1.2
 * clients still find a suite.
 */
export function selfSignedKeyType(cipherSuites: readonly string[]): "ec" | "rsa" {
  const rsaOnly = cipherSuites.some((s) => s.includes("_RSA_")) && !cipherSuites.some((s) => s.includes("_ECDSA_"));
  return rsaOnly ? "rsa" : "ec";
}
