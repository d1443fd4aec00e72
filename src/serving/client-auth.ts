/**
 * Authentication by client certificate, as upstream's delegated authentication does it on the secure
 * port, in upstream's order:
 * 1. request header (an authenticating front proxy): a certificate chaining to the request-header CA,
 *    whose common name is in the allowed names (any name when the list is empty), vouches for the user
 *    named by the first non-empty username header, with the uid, group and extra headers;
 * 2. x509: a certificate chaining to the client CA is the user named by its common name, in the groups
 *    named by its organizations.
 * Either answers undefined when it does not apply, so the next method (a bearer token) is tried.
 * The TLS layer proves the client holds the certificate's key; the chain is checked here, per CA set.
 */
import { X509Certificate } from "node:crypto";

export interface RequestHeaderAuth {
  readonly ca: readonly X509Certificate[];
  readonly allowedNames: readonly string[];
  readonly usernameHeaders: readonly string[];
  readonly uidHeaders: readonly string[];
  readonly groupHeaders: readonly string[];
  readonly extraHeaderPrefixes: readonly string[];
}

export interface ClientCertAuth {
  /** `--client-ca-file` or the ConfigMap's `client-ca-file`; empty: no x509 authentication. */
  readonly clientCA: readonly X509Certificate[];
  readonly requestHeader: RequestHeaderAuth | undefined;
}

/** What the TLS layer saw: the chain the client sent (leaf first) and the request's headers. */
export interface PeerRequest {
  readonly chain: readonly X509Certificate[];
  /** Lower-cased header names; every value of repeated headers, in order. */
  readonly headers: ReadonlyMap<string, readonly string[]>;
}

/** Who a request comes from, as a TokenReview or a client certificate says. */
export interface UserInfo {
  readonly username: string;
  readonly uid?: string;
  readonly groups: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

export type CertVerdict = { user: UserInfo } | { error: string } | undefined;

const CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";
const ANY_USAGE = "2.5.29.37.0";
const MAX_DEPTH = 5;

/** Every certificate in a PEM bundle. */
export function parseBundle(pem: string): X509Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  return blocks.map((b) => new X509Certificate(b));
}

function current(cert: X509Certificate, now: Date): boolean {
  return new Date(cert.validFrom) <= now && now <= new Date(cert.validTo);
}

function issuedBy(cert: X509Certificate, issuer: X509Certificate): boolean {
  return cert.checkIssued(issuer) && cert.verify(issuer.publicKey);
}

function usableForClientAuth(leaf: X509Certificate): boolean {
  const usages = leaf.keyUsage as string[] | undefined;
  return !usages || usages.length === 0 || usages.includes(CLIENT_AUTH) || usages.includes(ANY_USAGE);
}

/** Whether the chain (leaf first, intermediates as sent) leads to one of `roots`, all certificates current. */
export function chainsTo(
  chain: readonly X509Certificate[],
  roots: readonly X509Certificate[],
  now = new Date(),
): boolean {
  let cert = chain[0];
  if (!cert || roots.length === 0 || !usableForClientAuth(cert)) return false;
  for (let depth = 0; depth < MAX_DEPTH; depth++) {
    const step: X509Certificate = cert;
    if (!current(step, now)) return false;
    const root = roots.find((r) => issuedBy(step, r));
    if (root) return current(root, now);
    const next = chain.slice(1).find((c) => c !== step && issuedBy(step, c));
    if (!next) return false;
    cert = next;
  }
  return false;
}

/** The subject's values for one attribute (`CN`, `O`), from Node's one-per-line subject text. */
function subjectValues(cert: X509Certificate, attribute: string): string[] {
  return cert.subject
    .split("\n")
    .filter((line) => line.startsWith(`${attribute}=`))
    .map((line) => line.slice(attribute.length + 1));
}

function firstHeader(headers: PeerRequest["headers"], names: readonly string[]): string | undefined {
  for (const name of names) {
    const value = headers.get(name.toLowerCase())?.find((v) => v !== "");
    if (value !== undefined) return value;
  }
  return undefined;
}

function extraFrom(headers: PeerRequest["headers"], prefixes: readonly string[]): Record<string, string[]> {
  const extra: Record<string, string[]> = {};
  for (const [name, values] of headers) {
    const prefix = prefixes.find((p) => name.startsWith(p.toLowerCase()));
    if (!prefix) continue;
    const key = decodeURIComponent(name.slice(prefix.length)).toLowerCase();
    extra[key] = [...(extra[key] ?? []), ...values];
  }
  return extra;
}

function fromRequestHeader(o: RequestHeaderAuth, peer: PeerRequest): CertVerdict {
  if (!chainsTo(peer.chain, o.ca)) return undefined;
  const name = subjectValues(peer.chain[0]!, "CN")[0] ?? "";
  if (o.allowedNames.length > 0 && !o.allowedNames.includes(name)) {
    return {
      error: `request-header client certificate ${JSON.stringify(name)} is not in --requestheader-allowed-names`,
    };
  }
  const username = firstHeader(peer.headers, o.usernameHeaders);
  if (username === undefined) return undefined;
  const groups = o.groupHeaders.flatMap((h) => peer.headers.get(h.toLowerCase()) ?? []);
  const uid = firstHeader(peer.headers, o.uidHeaders);
  return { user: { username, uid, groups, extra: extraFrom(peer.headers, o.extraHeaderPrefixes) } };
}

function fromClientCert(clientCA: readonly X509Certificate[], peer: PeerRequest): CertVerdict {
  if (!chainsTo(peer.chain, clientCA)) return undefined;
  const leaf = peer.chain[0]!;
  const username = subjectValues(leaf, "CN")[0] ?? "";
  if (username === "") return { error: "client certificate without a common name" };
  return { user: { username, groups: subjectValues(leaf, "O") } };
}

/** The user a client certificate vouches for, an error, or undefined when no certificate method applies. */
export function authenticateCertificate(o: ClientCertAuth, peer: PeerRequest): CertVerdict {
  if (peer.chain.length === 0) return undefined;
  const proxied = o.requestHeader ? fromRequestHeader(o.requestHeader, peer) : undefined;
  return proxied ?? fromClientCert(o.clientCA, peer);
}
