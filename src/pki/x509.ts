/**
 * Minimal X.509 v3 issuing with ECDSA P-256 (or RSA 2048) / SHA-256, in DER built by hand: enough for the self-signed
 * serving certificate (upstream generates one in memory when no --tls-cert-file is given) and for the
 * test control plane's CA, serving and client certificates. No other PKI features.
 */
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  randomBytes,
  sign,
  type KeyObject,
} from "node:crypto";
import { parseIP } from "../net/ip.ts";

export interface Subject {
  readonly commonName: string;
  readonly organizations?: readonly string[];
}

export interface CertificateRequest {
  readonly subject: Subject;
  readonly isCA?: boolean;
  readonly dnsNames?: readonly string[];
  readonly ipAddresses?: readonly string[];
  readonly serverAuth?: boolean;
  readonly clientAuth?: boolean;
  readonly validDays?: number;
  /** The key of the new certificate: ECDSA P-256 (the default) or RSA 2048, upstream's self-signed kind. */
  readonly keyType?: "ec" | "rsa";
}

export interface KeyPair {
  readonly certPem: string;
  readonly keyPem: string;
  /** Kept so certificates issued by this pair carry a byte-identical issuer name. */
  readonly subject: Subject;
}

interface Issuer {
  readonly subject: Subject;
  readonly key: KeyObject;
  readonly keyId: Buffer;
}

// --- DER ---
function tlv(tag: number, content: Buffer): Buffer {
  const len = content.length;
  let header: Buffer;
  if (len < 0x80) header = Buffer.from([tag, len]);
  else {
    const bytes: number[] = [];
    for (let n = len; n > 0; n = Math.floor(n / 256)) bytes.unshift(n & 0xff);
    header = Buffer.from([tag, 0x80 | bytes.length, ...bytes]);
  }
  return Buffer.concat([header, content]);
}

const seq = (...items: Buffer[]): Buffer => tlv(0x30, Buffer.concat(items));
const set = (...items: Buffer[]): Buffer => tlv(0x31, Buffer.concat(items));
const octets = (b: Buffer): Buffer => tlv(0x04, b);
const bitString = (b: Buffer, unused = 0): Buffer => tlv(0x03, Buffer.concat([Buffer.from([unused]), b]));
const utf8 = (s: string): Buffer => tlv(0x0c, Buffer.from(s, "utf8"));
const bool = (v: boolean): Buffer => tlv(0x01, Buffer.from([v ? 0xff : 0]));
const explicit = (n: number, inner: Buffer): Buffer => tlv(0xa0 + n, inner);

function integer(b: Buffer): Buffer {
  const trimmed = b[0] === 0 && b.length > 1 ? b.subarray(1) : b;
  return tlv(0x02, (trimmed[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed);
}

function oid(dotted: string): Buffer {
  const parts = dotted.split(".").map(Number);
  const bytes = [40 * (parts[0] ?? 0) + (parts[1] ?? 0)];
  for (const part of parts.slice(2)) {
    const chunk: number[] = [part & 0x7f];
    for (let n = Math.floor(part / 128); n > 0; n = Math.floor(n / 128)) chunk.unshift((n & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return tlv(0x06, Buffer.from(bytes));
}

function time(d: Date): Buffer {
  const iso = d.toISOString().replace(/[-:T]/g, "").slice(0, 14);
  return d.getUTCFullYear() < 2050 ? tlv(0x17, Buffer.from(`${iso.slice(2)}Z`)) : tlv(0x18, Buffer.from(`${iso}Z`));
}

function name(subject: Subject): Buffer {
  const rdns = (subject.organizations ?? []).map((o) => set(seq(oid("2.5.4.10"), utf8(o))));
  return seq(...rdns, set(seq(oid("2.5.4.3"), utf8(subject.commonName))));
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return seq(oid(id), ...(critical ? [bool(true)] : []), octets(value));
}

function altNames(req: CertificateRequest): Buffer[] {
  const dns = (req.dnsNames ?? []).map((n) => tlv(0x82, Buffer.from(n, "ascii")));
  const ips = (req.ipAddresses ?? []).map((text) => {
    const ip = parseIP(text);
    if (!ip) throw new Error(`not an IP address: ${text}`);
    const hex = ip.value.toString(16).padStart(ip.family === 4 ? 8 : 32, "0");
    return tlv(0x87, Buffer.from(hex, "hex"));
  });
  return [...dns, ...ips];
}

function extensions(req: CertificateRequest, keyId: Buffer, issuerKeyId: Buffer): Buffer {
  // keyCertSign|cRLSign|digitalSignature : digitalSignature|keyEncipherment
  const usage = req.isCA ? Buffer.from([0x86]) : Buffer.from([0xa0]);
  const purposes = [...(req.serverAuth ? ["1.3.6.1.5.5.7.3.1"] : []), ...(req.clientAuth ? ["1.3.6.1.5.5.7.3.2"] : [])];
  const sans = altNames(req);
  const list = [
    extension("2.5.29.19", true, req.isCA ? seq(bool(true)) : seq()),
    extension("2.5.29.15", true, bitString(usage, req.isCA ? 1 : 5)),
    ...(purposes.length > 0 ? [extension("2.5.29.37", false, seq(...purposes.map(oid)))] : []),
    ...(sans.length > 0 ? [extension("2.5.29.17", false, seq(...sans))] : []),
    extension("2.5.29.14", false, octets(keyId)),
    extension("2.5.29.35", false, seq(tlv(0x80, issuerKeyId))),
  ];
  return explicit(3, seq(...list));
}

const ECDSA_SHA256 = seq(oid("1.2.840.10045.4.3.2"));
const RSA_SHA256 = seq(oid("1.2.840.113549.1.1.11"), Buffer.from([0x05, 0x00]));

/** The signature algorithm a key signs with here. */
function algorithmOf(key: KeyObject): Buffer {
  return key.asymmetricKeyType === "rsa" ? RSA_SHA256 : ECDSA_SHA256;
}

function newKeyPair(type: "ec" | "rsa"): { privateKey: KeyObject; publicKey: KeyObject } {
  return type === "rsa"
    ? generateKeyPairSync("rsa", { modulusLength: 2048 })
    : generateKeyPairSync("ec", { namedCurve: "prime256v1" });
}

function keyIdOf(key: KeyObject): Buffer {
  return createHash("sha1")
    .update(createPublicKey(key).export({ type: "spki", format: "der" }))
    .digest();
}

/** DER as PEM: base64 in lines of 64 between the label's BEGIN and END lines. */
export function pem(label: string, der: Buffer): string {
  const lines = der.toString("base64").match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join("\n")}\n-----END ${label}-----\n`;
}

/** Issues a certificate for `req`, signed by `issuer` (or self-signed when no issuer is given). */
export function issueCertificate(req: CertificateRequest, issuer?: KeyPair): KeyPair {
  const { privateKey, publicKey } = newKeyPair(req.keyType ?? "ec");
  const keyId = keyIdOf(privateKey);
  const signer: Issuer = issuer ? issuerOf(issuer) : { subject: req.subject, key: privateKey, keyId };
  const algorithm = algorithmOf(signer.key);
  const now = Date.now();
  const tbs = seq(
    explicit(0, integer(Buffer.from([2]))),
    integer(randomBytes(16)),
    algorithm,
    name(signer.subject),
    seq(time(new Date(now - 5 * 60_000)), time(new Date(now + (req.validDays ?? 365) * 86_400_000))),
    name(req.subject),
    publicKey.export({ type: "spki", format: "der" }),
    extensions(req, keyId, signer.keyId),
  );
  const signature = sign("sha256", tbs, signer.key);
  const der = seq(tbs, algorithm, bitString(signature));
  return {
    certPem: pem("CERTIFICATE", der),
    keyPem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    subject: req.subject,
  };
}

function issuerOf(pair: KeyPair): Issuer {
  const key = createPrivateKey(pair.keyPem);
  return { subject: pair.subject, key, keyId: keyIdOf(key) };
}
