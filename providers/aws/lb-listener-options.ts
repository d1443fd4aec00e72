/**
 * The annotations that shape listeners, as cloud-provider-aws reads them: `ssl-cert` (an ACM or IAM
 * certificate ARN) turns the ports of `ssl-ports` (default `*`, every port; numbers or port names) into
 * TLS listeners; `backend-protocol` (http, https, ssl, tcp) picks what the load balancer speaks to the
 * nodes; `ssl-negotiation-policy` names a predefined security policy; `proxy-protocol: "*"` (the only value
 * upstream accepts) sends the PROXY header to every backend. Values are checked here, before any call.
 */
import type { ServiceWarning } from "../../src/cloud/provider.ts";
import { badAnnotation as bad, PREFIX, readList, type Read } from "./lb-annotation-values.ts";

export type BackendProtocol = "http" | "https" | "ssl" | "tcp";

export interface TlsOptions {
  readonly certificate: string;
  /** Undefined: every port (`*`). Names are lower-case, as upstream compares them. */
  readonly ports?: { readonly numbers: readonly number[]; readonly names: readonly string[] };
  /** A predefined security policy (`ELBSecurityPolicy-…`); undefined: AWS's default. */
  readonly policy?: string;
}

export interface ListenerOptions {
  readonly tls?: TlsOptions;
  readonly backendProtocol?: BackendProtocol;
  readonly proxyProtocol: boolean;
  /** NLB TLS listeners only. */
  readonly alpnPolicy?: string;
}

const CERTIFICATE =
  /^arn:aws[a-z-]*:(acm:[a-z0-9-]+:\d{12}:certificate\/[A-Za-z0-9-]+|iam::\d{12}:server-certificate\/\S+)$/;
const POLICY = /^(ELBSecurityPolicy|ELBSample)-[A-Za-z0-9-]+$/;
const BACKEND_PROTOCOLS: readonly string[] = ["http", "https", "ssl", "tcp"];
export const ALPN_POLICIES: readonly string[] = ["HTTP1Only", "HTTP2Only", "HTTP2Optional", "HTTP2Preferred", "None"];

function ignored(name: string, why: string): ServiceWarning {
  return { reason: "UnsupportedAnnotation", message: `annotation ${PREFIX}${name} ${why}` };
}

function sslPorts(read: Read): TlsOptions["ports"] {
  const items = readList(read, "ssl-ports");
  if (items.length === 0 || items.includes("*")) return undefined;
  const numbers: number[] = [];
  const names: string[] = [];
  for (const item of items) {
    if (!/^\d+$/.test(item)) names.push(item.toLowerCase());
    else if (Number(item) >= 1 && Number(item) <= 65535) numbers.push(Number(item));
    else throw bad("ssl-ports", read("ssl-ports") ?? "", `port ${item} is not from 1 to 65535`);
  }
  return { numbers, names };
}

function certificateOf(read: Read, warnings: ServiceWarning[]): string | undefined {
  const certificate = read("ssl-cert")?.trim() ?? "";
  if (certificate !== "") return certificate;
  for (const name of ["ssl-ports", "ssl-negotiation-policy"]) {
    if (read(name) !== undefined) warnings.push(ignored(name, `has no effect without ${PREFIX}ssl-cert; ignored`));
  }
  return undefined;
}

function tlsOptions(read: Read, warnings: ServiceWarning[]): TlsOptions | undefined {
  const certificate = certificateOf(read, warnings);
  if (certificate === undefined) return undefined;
  if (!CERTIFICATE.test(certificate)) {
    throw bad(
      "ssl-cert",
      certificate,
      "expected an ACM certificate ARN (arn:aws:acm:<region>:<account>:certificate/<id>) or an IAM server certificate ARN",
    );
  }
  const policy = read("ssl-negotiation-policy")?.trim();
  if (policy !== undefined && !POLICY.test(policy)) {
    throw bad(
      "ssl-negotiation-policy",
      policy,
      "expected the name of a predefined security policy, such as ELBSecurityPolicy-TLS-1-2-2017-01",
    );
  }
  return { certificate, ports: sslPorts(read), ...(policy ? { policy } : {}) };
}

function backendProtocol(read: Read): BackendProtocol | undefined {
  const value = read("backend-protocol");
  if (value === undefined || value === "") return undefined;
  if (!BACKEND_PROTOCOLS.includes(value)) throw bad("backend-protocol", value, "expected http, https, ssl or tcp");
  return value as BackendProtocol;
}

function proxyProtocol(read: Read): boolean {
  const value = read("proxy-protocol");
  if (value === undefined) return false;
  if (value !== "*") throw bad("proxy-protocol", value, `the only supported value is "*" (every backend port)`);
  return true;
}

function alpnPolicy(read: Read, tls: TlsOptions | undefined, warnings: ServiceWarning[]): string | undefined {
  const value = read("alpn-policy");
  if (value === undefined) return undefined;
  if (!ALPN_POLICIES.includes(value)) throw bad("alpn-policy", value, `expected one of ${ALPN_POLICIES.join(", ")}`);
  if (!tls) warnings.push(ignored("alpn-policy", `only applies to TLS listeners (${PREFIX}ssl-cert); ignored`));
  return tls ? value : undefined;
}

/** The listener annotations, validated; notes on ignored ones go to `warnings`. */
export function readListenerOptions(read: Read, nlb: boolean, warnings: ServiceWarning[]): ListenerOptions {
  const tls = tlsOptions(read, warnings);
  const backend = backendProtocol(read);
  if (nlb && (backend === "http" || backend === "https")) {
    warnings.push(
      ignored(
        "backend-protocol",
        `${backend} has no effect on a network load balancer (TCP, or TLS with ssl); ignored`,
      ),
    );
  }
  return {
    ...(tls ? { tls } : {}),
    ...(backend ? { backendProtocol: backend } : {}),
    proxyProtocol: proxyProtocol(read),
    ...(nlb ? { alpnPolicy: alpnPolicy(read, tls, warnings) } : {}),
  };
}

/** Whether the Service port gets a TLS listener (upstream: the certificate and the port is in `ssl-ports`). */
export function usesTls(tls: TlsOptions | undefined, port: { readonly port: number; readonly name?: string }): boolean {
  if (!tls) return false;
  if (!tls.ports) return true;
  return tls.ports.numbers.includes(port.port) || tls.ports.names.includes((port.name ?? "").toLowerCase());
}

/** A warning for `ssl-ports` entries that name no port of the Service (upstream ignores them silently). */
export function unmatchedSslPorts(
  tls: TlsOptions | undefined,
  ports: readonly { readonly port: number; readonly name?: string }[],
): ServiceWarning[] {
  if (!tls?.ports) return [];
  const numbers = tls.ports.numbers.filter((n) => !ports.some((p) => p.port === n)).map(String);
  const names = tls.ports.names.filter((n) => !ports.some((p) => (p.name ?? "").toLowerCase() === n));
  const unmatched = [...numbers, ...names];
  if (unmatched.length === 0) return [];
  return [
    {
      reason: "InvalidAnnotation",
      message: `annotation ${PREFIX}ssl-ports: ${unmatched.join(", ")} match no port of the Service; ignored`,
    },
  ];
}
