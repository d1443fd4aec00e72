/**
 * Certificate pinning by `thumbprint`, as govmomi does it: vCenter's leaf certificate must have the
 * configured SHA-1 fingerprint (20 colon-separated hex bytes, any case), whoever signed it. The TLS
 * library checks a chain before it shows the certificate, so the chain vCenter presents is probed once and
 * its root (self-signed) is trusted for this one purpose; every connection is then accepted only when
 * its leaf has the pinned fingerprint, before a request is sent. The host name is not checked, as govmomi.
 */

const THUMBPRINT = /^([0-9A-F]{2}:){19}[0-9A-F]{2}$/;

/** The canonical form (upper case), or undefined when `text` is not a SHA-1 thumbprint. */
export function normalizeThumbprint(text: string): string | undefined {
  const upper = text.trim().toUpperCase();
  return THUMBPRINT.test(upper) ? upper : undefined;
}

/** A certificate as `tls.TLSSocket.getPeerCertificate(true)` shows it. */
export interface PeerCertificate {
  readonly fingerprint: string;
  readonly raw: Uint8Array;
  readonly issuerCertificate?: PeerCertificate;
}

export interface PinnedTls {
  readonly ca: string;
  readonly checkServerIdentity: (host: string, cert: { fingerprint?: string }) => Error | undefined;
}

const pem = (der: Uint8Array): string =>
  `-----BEGIN CERTIFICATE-----\n${(
    Buffer.from(der)
      .toString("base64")
      .match(/.{1,64}/g) ?? []
  ).join("\n")}\n` + "-----END CERTIFICATE-----\n";

const mismatch = (seen: string | undefined, pin: string): Error =>
  new Error(`vCenter's certificate has SHA-1 thumbprint ${seen ?? "(none)"}, not the configured ${pin}`);

/** The TLS settings that pin `pin`, from the chain vCenter presented; an error naming what is wrong. */
export function pinnedTls(leaf: PeerCertificate, pin: string): PinnedTls | Error {
  if (leaf.fingerprint.toUpperCase() !== pin) return mismatch(leaf.fingerprint, pin);
  let root = leaf;
  const seen = new Set<string>([leaf.fingerprint]);
  for (let next = leaf.issuerCertificate; next && !seen.has(next.fingerprint); next = next.issuerCertificate) {
    seen.add(next.fingerprint);
    root = next;
  }
  if (root.issuerCertificate?.fingerprint !== root.fingerprint)
    return new Error(
      "vCenter does not present the root (self-signed) certificate of its chain, which thumbprint pinning " +
        "needs here; give that CA in caFile instead",
    );
  return {
    ca: pem(root.raw),
    checkServerIdentity: (_host, cert) =>
      cert.fingerprint?.toUpperCase() === pin ? undefined : mismatch(cert.fingerprint, pin),
  };
}
