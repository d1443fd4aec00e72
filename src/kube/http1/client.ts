/**
 * HTTP/1.1 to the API server on the calling thread's own sockets (`Bun.connect`), kept alive and reused.
 *
 * Why not `fetch`: Bun runs the HTTP of every `fetch` of every thread on one process-wide "HTTP Client"
 * thread, so controller threads parsed their own JSON but not their own HTTP (in a 5,000-Node burst that
 * thread used 1.05–1.21 CPU s whatever the number of threads); and here a request costs about a third
 * less CPU (`scripts/bench/http-client-cost.ts`: 16–19 µs against 26–28 µs). A proxied connection (kubeconfig
 * `proxy-url`, or HTTPS_PROXY / HTTP_PROXY) still goes through `fetch`, which speaks to proxies.
 *
 * Like Go's http.Transport: a request that finds its kept-alive connection closed by the server before
 * any byte of an answer came back is sent again on another (the server never read it). A connection idle
 * for 45 s is closed instead of reused (client-go keeps them 90 s), inside the idle timeout of the load
 * balancers often put in front of API servers (50–60 s). A client certificate named by file is read again
 * every 5 minutes (client-cert.ts); once it changed, connections made with the old one close when idle.
 */
import type { TlsMaterial } from "../connection.ts";
import { ClientCertificate, type ReloadDeps } from "./client-cert.ts";
import { onAbort } from "../../util/abort.ts";
import { abortReason } from "../../util/clock.ts";
import { ConnectionLostError, Link, StaleConnectionError, type BunTls, type Origin } from "./link.ts";
import type { ResponseHead } from "./response-parser.ts";

/** The part of a fetch `Response` the transport reads: a fetch answer is one too. */
export interface Answer {
  readonly status: number;
  readonly statusText: string;
  readonly ok: boolean;
  readonly headers: { get(name: string): string | null };
  text(): Promise<string>;
  readonly body: ReadableStream<Uint8Array> | null;
}

export interface Outbound {
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly signal?: AbortSignal;
  /**
   * The whole exchange, the answer's body included, ends within this or fails with `ExchangeTimeoutError`
   * (not for a stream). One timer, and no AbortController: a request is cheaper without one.
   */
  readonly timeoutMs?: number;
  /** Answer at the head and leave the body to be read as a stream (a watch); else once it is all in. */
  readonly stream?: boolean;
  /**
   * Asked each time a stream's reader waits with nothing left to read: how long to leave the connection
   * unread first (default none), so what the server sends meanwhile is read at one wake. Not for a
   * proxied connection (`fetch` reads on).
   */
  readonly pace?: () => number;
}

/** A request's own time ran out before its answer was all in. */
export class ExchangeTimeoutError extends Error {
  override readonly name = "TimeoutError";
}

export interface HttpClient {
  /** `target`: the path and query, appended to the server URL. */
  send(target: string, request: Outbound): Promise<Answer>;
}

const MAX_IDLE_MS = 45_000;

export interface ClientOptions {
  /** How long an idle connection is kept (tests shorten it). */
  readonly maxIdleMs?: number;
  /** How the client certificate's files are read again, and where a change or a refusal is told. */
  readonly certificate?: ReloadDeps;
}

export function socketClient(server: string, tls: TlsMaterial, options: ClientOptions = {}): HttpClient {
  const maxIdleMs = options.maxIdleMs ?? MAX_IDLE_MS;
  const certificate = new ClientCertificate(tls, options.certificate);
  const { prefix } = originOf(server, tls);
  let origin = originOf(server, tls).origin;
  let generation = 0;
  /** The certificate generation each connection was made with. */
  const madeWith = new WeakMap<Link, number>();
  const idle: Link[] = [];
  let sweeping: ReturnType<typeof setTimeout> | undefined;
  const forget = (link: Link): void => {
    const at = idle.indexOf(link);
    if (at >= 0) idle.splice(at, 1);
  };
  /** Closes the connections idle for `maxIdleMs` (as Go's IdleConnTimeout), while any are kept. */
  const sweep = (): void => {
    sweeping = undefined;
    const now = performance.now();
    for (const link of idle.filter((l) => now - l.idleSince >= maxIdleMs)) link.destroy();
    if (idle.length > 0) sweeping = setTimeout(sweep, maxIdleMs).unref();
  };
  /** A new pair: new connections use it, idle ones made with the old one close (busy ones once idle). */
  const rotate = (): void => {
    const now = certificate.refresh();
    if (now === generation) return;
    generation = now;
    origin = originOf(server, certificate.tls).origin;
    for (const link of idle.splice(0)) link.destroy();
  };
  const release = (link: Link): void => {
    if (link.closed) return;
    if (madeWith.get(link) !== generation) {
      link.destroy();
      return;
    }
    idle.push(link);
    sweeping ??= setTimeout(sweep, maxIdleMs).unref();
  };
  const checkout = async (signal: AbortSignal | undefined): Promise<Link> => {
    for (let link = idle.pop(); link !== undefined; link = idle.pop()) {
      if (performance.now() - link.idleSince < maxIdleMs) return link;
      link.destroy();
    }
    const made = generation;
    const opened = await Link.open(origin, forget, signal);
    madeWith.set(opened, made);
    return opened;
  };
  return {
    async send(target, request) {
      request.signal?.throwIfAborted();
      rotate();
      const bytes = requestBytes(origin.host, request.method, prefix + target, request);
      for (;;) {
        const link = await checkout(request.signal);
        try {
          return await exchange(link, bytes, request, release);
        } catch (error) {
          // Only a reused connection can be stale, and each is tried once: this ends.
          if (!(error instanceof StaleConnectionError) || request.signal?.aborted) throw error;
        }
      }
    },
  };
}

/**
 * The same contract over `fetch`, for a connection through a proxy (its body read under the same timer).
 * A renewed client certificate is passed with the requests after it: `fetch` keys its kept-alive connections
 * by the TLS options, so those requests go on a new connection (a new tunnel), as the test shows.
 */
export function fetchClient(server: string, tls: TlsMaterial, proxy: string, options: ClientOptions = {}): HttpClient {
  const certificate = new ClientCertificate(tls, options.certificate);
  return {
    async send(target, request) {
      certificate.refresh();
      const tls = bunTls(certificate.tls);
      const timer = request.timeoutMs === undefined ? undefined : AbortSignal.timeout(request.timeoutMs);
      const signals = [request.signal, timer].filter((s) => s !== undefined);
      const signal = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
      const init = { method: request.method, headers: request.headers, body: request.body, signal, tls, proxy };
      try {
        const response = await fetch(server + target, { ...init, keepalive: true });
        if (request.stream) return response;
        const text = await response.text();
        return answerOf(response, text);
      } catch (error) {
        throw request.signal?.aborted ? error : fetchFailure(error, timer);
      }
    },
  };
}

/** A request `fetch` failed, not for the caller's abort: timed out, its connection lost, or else. */
function fetchFailure(error: unknown, timer: AbortSignal | undefined): unknown {
  if (timer?.aborted) return new ExchangeTimeoutError("the request timed out");
  const reset = (error as { code?: string }).code === "ECONNRESET";
  return reset ? new ConnectionLostError((error as Error).message, { cause: error }) : error;
}

/** A fetch answer already read whole. */
function answerOf(response: Response, text: string): Answer {
  const { status, statusText, ok, headers } = response;
  return { status, statusText, ok, headers, body: null, text: () => Promise.resolve(text) };
}

function exchange(link: Link, bytes: Buffer, request: Outbound, release: (link: Link) => void): Promise<Answer> {
  if (request.signal?.aborted) {
    release(link);
    return Promise.reject(abortReason(request.signal));
  }
  return new Promise<Answer>((resolve, reject) => {
    let head: ResponseHead | undefined;
    const pieces: Buffer[] = [];
    let stream: ReadableStreamDefaultController<Uint8Array> | undefined;
    let resuming: ReturnType<typeof setTimeout> | undefined;
    const unsubscribe = onAbort(request.signal, () => link.abandon(abortReason(request.signal)));
    const expire = (): void => link.abandon(new ExchangeTimeoutError("the request timed out"));
    const timer = request.timeoutMs === undefined || request.stream ? undefined : setTimeout(expire, request.timeoutMs);
    const settle = (): void => {
      clearTimeout(timer);
      clearTimeout(resuming);
      unsubscribe();
    };
    /** The reader waits and nothing is queued: if the pace asks, the socket is left unread for a while. */
    const pull = (): void => {
      const waitMs = request.pace?.() ?? 0;
      if (waitMs <= 0 || resuming !== undefined) return;
      link.pause();
      resuming = setTimeout(() => {
        resuming = undefined;
        link.resume();
      }, waitMs);
    };
    link.send(bytes, {
      head(answered) {
        head = answered;
        // An error answer to a watch is read whole, as any other: its Status says what went wrong.
        if (!request.stream || answered.status < 200 || answered.status >= 300) return;
        // High-water mark 0: `pull` is called only when the reader waits with nothing queued.
        const body = new ReadableStream<Uint8Array>(
          {
            start: (controller) => void (stream = controller),
            pull,
            cancel: () => link.abandon(new DOMException("The stream was cancelled.", "AbortError")),
          },
          { highWaterMark: 0 },
        );
        resolve(answer(answered, body, ""));
      },
      body: (piece) => (stream ? stream.enqueue(piece) : pieces.push(piece)),
      end() {
        settle();
        link.resume(); // a stream may end in a pause (bytes read before it): the next exchange must be read
        release(link);
        if (stream) return quietly(() => stream?.close());
        resolve(answer(head!, null, decode(pieces)));
      },
      fail(error) {
        settle();
        if (stream) return quietly(() => stream?.error(error));
        reject(error);
      },
    });
  });
}

function answer(head: ResponseHead, body: ReadableStream<Uint8Array> | null, text: string): Answer {
  return {
    status: head.status,
    statusText: head.statusText,
    ok: head.status >= 200 && head.status < 300,
    headers: { get: (name) => head.headers.get(name.toLowerCase()) ?? null },
    text: () => Promise.resolve(text),
    body,
  };
}

function decode(pieces: readonly Buffer[]): string {
  if (pieces.length === 0) return "";
  return (pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces)).toString("utf8");
}

const CONTENT_METHODS = new Set(["POST", "PUT", "PATCH"]);

/** The request as it goes on the wire; a header value or target that would split the request is refused. */
function requestBytes(host: string, method: string, target: string, request: Outbound): Buffer {
  if (/[\s]/.test(target)) throw new TypeError(`request target ${JSON.stringify(target)} holds white space`);
  let head = `${method} ${target} HTTP/1.1\r\nHost: ${host}\r\n`;
  for (const name in request.headers) {
    const value = request.headers[name] ?? "";
    if (/[\r\n]/.test(value)) throw new TypeError(`header ${name} holds a line break`);
    head += `${name}: ${value}\r\n`;
  }
  const body = request.body ?? "";
  if (request.body !== undefined || CONTENT_METHODS.has(method))
    head += `Content-Length: ${Buffer.byteLength(body)}\r\n`;
  return Buffer.from(`${head}\r\n${body}`);
}

function originOf(server: string, tls: TlsMaterial): { origin: Origin; prefix: string } {
  const url = new URL(server);
  const https = url.protocol === "https:";
  const origin: Origin = {
    hostname: url.hostname.replace(/^\[|\]$/g, ""),
    port: Number(url.port || (https ? 443 : 80)),
    host: url.host,
    tls: https ? bunTls(tls) : undefined,
  };
  // A server URL may carry a path (a proxying front end): every request goes under it, as with fetch.
  return { origin, prefix: url.pathname.replace(/\/+$/, "") };
}

/** The material as Bun's `tls` options take it (the files' paths are ours). */
function bunTls({ certFile: _cert, keyFile: _key, ...tls }: TlsMaterial): BunTls {
  return tls;
}

function quietly(act: () => void): void {
  try {
    act();
  } catch {
    // the reader has already cancelled the stream
  }
}
