/**
 * Certificate pinning by `thumbprint`: vCenter's leaf certificate must have the configured fingerprint,
 * SHA-1 (20 colon-separated hex bytes) or SHA-256 (32), any case, as govmomi's thumbprintMatches. Without
 * `caFile`, whoever signed it: the TLS library checks a chain before it shows the certificate, so the
 * chain vCenter presents is probed once and its root (self-signed) is trusted for this one purpose. With
 * `caFile`, that CA must have signed it as well (govmomi accepts either). Every connection is accepted
 * only when its leaf has the pinned fingerprint, before a request is sent. The host name is not checked.
 */
import { pem } from "../../src/pki/x509.ts";

const THUMBPRINT = /^([0-9A-F]{2}:){19}([0-9A-F]{2}|([0-9A-F]{2}:){12}[0-9A-F]{2})$/;
const SHA1_LENGTH = 20 * 3 - 1;

/** The canonical form (upper case), or undefined when `text` is not a SHA-1 or SHA-256 thumbprint. */
export function normalizeThumbprint(text: string): string | undefined {
  const upper = text.trim().toUpperCase();
  return THUMBPRINT.test(upper) ? upper : undefined;
}

/** A certificate as `tls.TLSSocket.getPeerCertificate(true)` shows it. */
export interface PeerCertificate {
  readonly fingerprint: string;
  readonly fingerprint256: string;
  readonly raw: Uint8Array;
  readonly issuerCertificate?: PeerCertificate;
}

type Fingerprints = { readonly fingerprint?: string; readonly fingerprint256?: string };

export interface PinnedTls {
  readonly ca: string;
  readonly checkServerIdentity: (host: string, cert: Fingerprints) => Error | undefined;
}

/** The error when `cert` does not have the fingerprint `pin`, in the pin's algorithm. */
function mismatch(cert: Fingerprints, pin: string): Error | undefined {
  const sha1 = pin.length === SHA1_LENGTH;
  const seen = sha1 ? cert.fingerprint : cert.fingerprint256;
  if (seen?.toUpperCase() === pin) return undefined;
  const algorithm = sha1 ? "SHA-1" : "SHA-256";
  return new Error(`vCenter's certificate has ${algorithm} thumbprint ${seen ?? "(none)"}, not the configured ${pin}`);
}

/** The TLS settings that pin `pin` on top of the CA check against `ca` (caFile's PEM). */
export function pinnedWithCa(ca: string, pin: string): PinnedTls {
  return { ca, checkServerIdentity: (_host, cert) => mismatch(cert, pin) };
}

/** The TLS settings that pin `pin`, from the chain vCenter presented; an error naming what is wrong. */
export function pinnedTls(leaf: PeerCertificate, pin: string): PinnedTls | Error {
  const wrong = mismatch(leaf, pin);
  if (wrong) return wrong;
  let root = leaf;
  const seen = new Set<string>([leaf.fingerprint]);
  for (let next = leaf.issuerCertificate; next && !seen.has(next.fingerprint); next = next.issuerCertificate) {
    seen.add(next.fingerprint);
    root = next;
  }
  if (root.issuerCertificate?.fingerprint !== root.fingerprint)
    return new Error(
      "vCenter does not present the root (self-signed) certificate of its chain, which thumbprint pinning " +
        "needs without a caFile; give the CA that signed it in caFile (the thumbprint is then checked as well)",
    );
  return pinnedWithCa(pem("CERTIFICATE", Buffer.from(root.raw)), pin);
}
