/**
 * A client certificate the kubeconfig names by file (client-certificate and client-key, neither inline)
 * is read again, as client-go's (`ReloadTLSFiles`: its rotating dialer looks every 5 minutes and closes
 * the connections made with the old pair). So a pair renewed in place (cert-manager, kubeadm's renewal, a
 * kubelet-style rotation) is used without a restart. Unlike client-go, a pair that cannot be used (a file
 * unreadable or half written, the key not the certificate's) never replaces the one in use: it is
 * reported once and looked at again at the next check.
 */
import { readFileSync } from "node:fs";
import type { TlsMaterial } from "../connection.ts";

/** client-go's CertCallbackRefreshDuration. */
export const CERT_RELOAD_MS = 5 * 60_000;

export interface CertificatePair {
  readonly cert: string;
  readonly key: string;
}

/**
 * Why a pair read from the files cannot be used, or undefined when it can. `node:crypto` is loaded here,
 * when a pair changed, not with the HTTP client: loading it costs a thread about 5 MiB of memory.
 */
export function pairProblem(pair: CertificatePair): string | undefined {
  const { X509Certificate, createPrivateKey } = process.getBuiltinModule("node:crypto");
  try {
    const certificate = new X509Certificate(pair.cert);
    if (!certificate.checkPrivateKey(createPrivateKey(pair.key))) return "the key is not the certificate's";
    return undefined;
  } catch (error) {
    return `not a PEM certificate and key: ${(error as Error).message}`;
  }
}

/** What a check decides: keep the pair in use, use the one read, or keep and report why not. */
export type ReloadDecision =
  | { readonly action: "keep" }
  | { readonly action: "use"; readonly pair: CertificatePair }
  | { readonly action: "refuse"; readonly reason: string };

export function reloadDecision(inUse: CertificatePair, read: CertificatePair | Error): ReloadDecision {
  if (read instanceof Error) return { action: "refuse", reason: read.message };
  if (read.cert === inUse.cert && read.key === inUse.key) return { action: "keep" };
  const problem = pairProblem(read);
  return problem === undefined ? { action: "use", pair: read } : { action: "refuse", reason: problem };
}

export interface ReloadDeps {
  readonly read?: (path: string) => string;
  readonly now?: () => number;
  /** Told once per pair refused, and when a new pair is taken. */
  readonly report?: (message: string, refused: boolean) => void;
  readonly intervalMs?: number;
}

/**
 * The TLS material for new connections, with `generation` bumped each time a new pair is taken (the
 * connections of an older generation are closed once idle). The files are looked at on the first request,
 * then once per interval. Material without both files never changes.
 */
export class ClientCertificate {
  #tls: TlsMaterial;
  #generation = 0;
  #due: number;
  #refused = "";
  readonly #deps: Required<ReloadDeps>;

  constructor(tls: TlsMaterial, deps: ReloadDeps = {}) {
    this.#tls = tls;
    this.#deps = {
      read: deps.read ?? ((path) => readFileSync(path, "utf8")),
      now: deps.now ?? (() => performance.now()),
      report: deps.report ?? (() => undefined),
      intervalMs: deps.intervalMs ?? CERT_RELOAD_MS,
    };
    // The first look is at the first request: material read at start may be old by the time this client
    // is made (a standby's controller threads start when it takes the Lease, maybe days later).
    this.#due = this.#deps.now();
  }

  get tls(): TlsMaterial {
    return this.#tls;
  }

  /** Looks at the files when a check is due; returns the generation in force. */
  refresh(): number {
    const { certFile, keyFile } = this.#tls;
    if (certFile === undefined || keyFile === undefined || this.#deps.now() < this.#due) return this.#generation;
    this.#due = this.#deps.now() + this.#deps.intervalMs;
    const decision = reloadDecision({ cert: this.#tls.cert ?? "", key: this.#tls.key ?? "" }, this.#read());
    if (decision.action === "keep") this.#refused = "";
    if (decision.action === "use") {
      this.#tls = { ...this.#tls, ...decision.pair };
      this.#generation += 1;
      this.#refused = "";
      this.#deps.report(`client certificate ${certFile} changed: new connections use it`, false);
    } else if (decision.action === "refuse" && decision.reason !== this.#refused) {
      this.#refused = decision.reason;
      this.#deps.report(
        `client certificate ${certFile} not reloaded, the one in use is kept: ${decision.reason}`,
        true,
      );
    }
    return this.#generation;
  }

  #read(): CertificatePair | Error {
    try {
      return { cert: this.#deps.read(this.#tls.certFile ?? ""), key: this.#deps.read(this.#tls.keyFile ?? "") };
    } catch (error) {
      return error instanceof Error ? error : new Error(String(error));
    }
  }
}
