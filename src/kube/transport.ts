/**
 * HTTP to the API server (http1/client.ts: the thread's own sockets, or `fetch` through a proxy): TLS
 * from the connection, the shared token bucket before every request (watches included, as client-go), a
 * user agent, a timeout on every non-watch request (one timer, the HTTP client's), and one observation per
 * request for the `rest_client_*` metrics. At most `maxInFlight` non-watch requests are on the wire at
 * once (others wait: a sync's second write first, Events last, each kind in order): HTTP/1.1 opens one
 * connection per request in flight, and a burst of a thousand concurrent syncs would otherwise hold a few
 * hundred TLS connections (memory and handshakes on both ends) where client-go multiplexes one HTTP/2
 * connection. API errors become `KubeApiError` carrying the `Status` reason; network failures become
 * `KubeUnreachableError` naming the server.
 */
import type { Connection } from "./connection.ts";
import {
  ExchangeTimeoutError,
  fetchClient,
  socketClient,
  type Answer,
  type ClientOptions,
  type HttpClient,
} from "./http1/client.ts";
import { ConnectionLostError } from "./http1/link.ts";
import type { TokenBucket } from "./token-bucket.ts";
import { sleep } from "../util/clock.ts";
import { Semaphore, type Slots } from "../util/concurrency.ts";
import type { Precedence } from "../util/fifo.ts";

export type Query = Readonly<Record<string, string | number | boolean | undefined>>;

export interface Request {
  readonly method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  readonly path: string;
  readonly query?: Query;
  readonly body?: unknown;
  readonly contentType?: string;
  /** The media types the answer may have (default `application/json`). */
  readonly accept?: string;
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  /**
   * Sent only from tokens no other request waits for, and on the wire after every waiting write (Events):
   * never delays the controllers' writes.
   */
  readonly background?: boolean;
  /**
   * The second write of a sync under way (a Node's addresses right after its taint came off): it takes a
   * token and a place on the wire before this thread's other waiting requests.
   */
  readonly urgent?: boolean;
  /** A stream (watch) only: how long to leave its connection unread once all it has read is used up. */
  readonly pace?: () => number;
}

export interface RequestObserver {
  (method: string, code: string, seconds: number): void;
}

/** The other `rest_client_*` observations (client-go's rate-limiter, size and retry metrics). */
export interface RequestMetrics {
  /** Seconds a request waited for a token of the client-side rate limiter. */
  rateLimited(method: string, seconds: number): void;
  sizes(method: string, requestBytes: number, responseBytes: number): void;
  /** A request sent again (`retryAfter`): the answer's status, or `<error>` for a lost connection. */
  retried(method: string, code: string): void;
}

export interface TransportOptions {
  readonly connection: Connection;
  readonly limiter: TokenBucket;
  readonly userAgent: string;
  readonly defaultTimeoutMs?: number;
  readonly observe?: RequestObserver;
  readonly metrics?: RequestMetrics;
  /** Retries of an answer carrying Retry-After (client-go's default 10); 0 turns them off. */
  readonly maxRetries?: number;
  /** Non-watch requests on the wire at once (default 64). */
  readonly maxInFlight?: number;
  /** The wire shared with the process's other clients, instead of `maxInFlight` of its own. */
  readonly wire?: Slots;
  /** Connections shared with other clients of the same server and TLS material (default: its own). */
  readonly http?: HttpClient;
}

export interface Transport {
  readonly server: string;
  /** Sends a request and returns the decoded JSON body (undefined for empty bodies). */
  json<T>(request: Request): Promise<T>;
  /** Sends a request and returns the body as text, not decoded (a caller that needs only a field of it). */
  text(request: Request): Promise<string>;
  /** Opens a streaming request (watch); the caller reads and cancels the body. */
  stream(request: Request): Promise<ReadableStream<Uint8Array>>;
}

/** An error answer from the API server (a `Status` object). */
export class KubeApiError extends Error {
  override readonly name = "KubeApiError";
  readonly status: number;
  /** `Status.reason`: NotFound, Conflict, AlreadyExists, Gone, Forbidden, Invalid, … */
  readonly reason: string;
  readonly retryAfterSeconds: number | undefined;
  constructor(status: number, reason: string, message: string, retryAfterSeconds?: number) {
    super(message);
    this.status = status;
    this.reason = reason;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** The API server could not be reached at all (refused, reset, DNS, TLS, timeout). */
export class KubeUnreachableError extends Error {
  override readonly name = "KubeUnreachableError";
}

export const isNotFound = (e: unknown): boolean => e instanceof KubeApiError && e.status === 404;
export const isConflict = (e: unknown): boolean =>
  e instanceof KubeApiError && e.status === 409 && e.reason === "Conflict";
/** 422: a field the API server refuses, or a JSON patch whose `test` failed. */
export const isInvalid = (e: unknown): boolean => e instanceof KubeApiError && e.status === 422;
export const isAlreadyExists = (e: unknown): boolean => e instanceof KubeApiError && e.reason === "AlreadyExists";
export const isGone = (e: unknown): boolean =>
  e instanceof KubeApiError && (e.status === 410 || e.reason === "Expired" || e.reason === "Gone");

const DEFAULT_TIMEOUT_MS = 30_000;
/**
 * Non-watch requests on the wire at once for the main thread, and for all controller threads together.
 * Every connection of every thread ends at the same API server: with 64 each, 4 threads held 256
 * connections, and the API server ended the informers' node watch again and again (12 watches in a
 * 5,000-Node burst instead of 4, each ended by the server, as its watch cache does with a watcher that
 * falls behind); a single thread allowed 256 did the same.
 */
export const DEFAULT_MAX_IN_FLIGHT = 64;
const DEFAULT_MAX_RETRIES = 10;
/** A Retry-After longer than this is not waited for: the error goes to the caller's own backoff. */
const MAX_RETRY_AFTER_S = 10;

/** What goes on the wire besides the URL: the headers (credentials resolved) and the encoded body. */
interface Outgoing {
  readonly head: Record<string, string>;
  readonly body: string | undefined;
}

const noMetrics: RequestMetrics = { rateLimited: () => undefined, sizes: () => undefined, retried: () => undefined };

/** Events wait for the wire behind every write, as they do for tokens; a sync's second write goes first. */
function precedenceOf(request: Request): Precedence {
  return request.urgent ? "urgent" : request.background ? "background" : "normal";
}

/**
 * The seconds after which client-go would send the request again, if it would: a 429 or 5xx answer asking
 * for it with Retry-After; a GET whose connection was reset or ended before the answer was whole, after 1
 * second (its artificial Retry-After; a write may have been applied, so it is not sent twice).
 */
function retryAfter(request: Request, error: unknown): number | undefined {
  if (error instanceof KubeUnreachableError)
    return request.method === "GET" && error.cause instanceof ConnectionLostError ? 1 : undefined;
  if (!(error instanceof KubeApiError) || error.retryAfterSeconds === undefined) return undefined;
  const asks = (error.status === 429 || error.status >= 500) && error.retryAfterSeconds <= MAX_RETRY_AFTER_S;
  return asks ? error.retryAfterSeconds : undefined;
}

/** Sockets of the calling thread's own, or `fetch` when the connection goes through a proxy. */
export function httpClientFor(
  connection: Pick<Connection, "server" | "tls" | "proxy">,
  options: ClientOptions = {},
): HttpClient {
  const { server, tls, proxy } = connection;
  return proxy ? fetchClient(server, tls, proxy, options) : socketClient(server, tls, options);
}

export function createTransport(options: TransportOptions): Transport {
  const { connection, limiter } = options;
  const http = options.http ?? httpClientFor(connection);
  const observe = options.observe ?? ((): void => undefined);
  const metrics = options.metrics ?? noMetrics;
  const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  const wire = options.wire ?? new Semaphore(options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT);

  /** Sends the request and observes it; an error answer becomes a KubeApiError (its body read here). */
  async function respond(request: Request, { head, body }: Outgoing, limit: Limit): Promise<Answer> {
    const started = performance.now();
    const target = buildTarget(request.path, request.query);
    const { signal, method } = request;
    let response: Answer;
    try {
      response = await http.send(target, { method, headers: head, body, signal, ...limit });
    } catch (error) {
      observe(request.method, "<error>", (performance.now() - started) / 1000);
      throw unreachable(connection.server, request, error, limit.timeoutMs);
    }
    observe(request.method, statusText(response.status), (performance.now() - started) / 1000);
    if (!response.ok) throw await apiError(response);
    return response;
  }

  /**
   * A whole exchange under one timer, the HTTP client's own: the answer's body is read under it too, so an
   * answer that stalls halfway is unreachable as well.
   */
  async function exchange(request: Request, outgoing: Outgoing): Promise<string> {
    const timeoutMs = request.timeoutMs ?? options.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS;
    const response = await respond(request, outgoing, { timeoutMs });
    return response.text();
  }

  async function headers(request: Request): Promise<Record<string, string>> {
    const h: Record<string, string> = {
      "User-Agent": options.userAgent,
      Accept: request.accept ?? "application/json",
    };
    const auth = await connection.authorization();
    if (auth) h.Authorization = auth;
    if (request.body !== undefined) h["Content-Type"] = request.contentType ?? "application/json";
    return h;
  }

  async function token(request: Request): Promise<void> {
    const started = performance.now();
    await (request.background ? limiter.waitIdle(request.signal) : limiter.wait(request.signal, request.urgent));
    metrics.rateLimited(request.method, (performance.now() - started) / 1000);
  }

  async function once(request: Request): Promise<string> {
    // The token and the credentials come first, so a request waiting for either never holds a slot on
    // the wire: a ServiceAccount token is refreshed with a request of its own on the same wire.
    await token(request);
    const body = encode(request.body);
    const outgoing = { head: await headers(request), body };
    const text = await wire.run(() => exchange(request, outgoing), precedenceOf(request));
    metrics.sizes(request.method, body === undefined ? 0 : Buffer.byteLength(body), Buffer.byteLength(text));
    return text;
  }

  /** `once`, sent again as client-go would (`retryAfter`). */
  async function text(request: Request): Promise<string> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await once(request);
      } catch (error) {
        const seconds = attempt < maxRetries ? retryAfter(request, error) : undefined;
        if (seconds === undefined) throw error;
        metrics.retried(request.method, error instanceof KubeApiError ? String(error.status) : "<error>");
        await sleep(seconds * 1000, request.signal);
      }
    }
  }

  return {
    server: connection.server,
    async json<T>(request: Request): Promise<T> {
      const answer = await text(request);
      return (answer === "" ? undefined : JSON.parse(answer)) as T;
    },
    text,
    async stream(request: Request): Promise<ReadableStream<Uint8Array>> {
      await token(request);
      // A watch has no timeout of its own (the server ends it after timeoutSeconds): the caller's signal only.
      const outgoing = { head: await headers(request), body: undefined };
      const response = await respond(request, outgoing, { stream: true, pace: request.pace });
      if (!response.body)
        throw new KubeUnreachableError(`empty watch response from ${connection.server}${request.path}`);
      return response.body;
    },
  };
}

/** The request's path and query; values percent-encoded, unset and empty ones left out (no URLSearchParams). */
function buildTarget(path: string, query: Query | undefined): string {
  let url = path;
  if (query === undefined) return url;
  let separator = "?";
  for (const key in query) {
    const value = query[key];
    if (value === undefined || value === "") continue;
    url += `${separator}${key}=${encodeURIComponent(value)}`;
    separator = "&";
  }
  return url;
}

const STATUS_TEXT = new Map<number, string>();

/** The `code` label: status numbers turned into strings once. */
function statusText(status: number): string {
  let text = STATUS_TEXT.get(status);
  if (text === undefined) STATUS_TEXT.set(status, (text = String(status)));
  return text;
}

function encode(body: unknown): string | undefined {
  if (body === undefined) return undefined;
  return typeof body === "string" ? body : JSON.stringify(body);
}

/**
 * What ends a request early besides its signal: its own time, or it is a stream (a watch) without one;
 * and for a stream, its pace (how long its connection is left unread once all it read is used up).
 */
interface Limit {
  readonly timeoutMs?: number;
  readonly stream?: boolean;
  readonly pace?: () => number;
}

/** `timeoutMs`: the limit the request ran under (its own, or the client's default), for the message. */
function unreachable(server: string, request: Request, error: unknown, timeoutMs?: number): Error {
  if (request.signal?.aborted) return error instanceof Error ? error : new Error(String(error));
  const expired = error instanceof ExchangeTimeoutError;
  const reason = expired ? `no answer within ${timeoutMs ?? DEFAULT_TIMEOUT_MS} ms` : errorText(error);
  return new KubeUnreachableError(
    `cannot reach the API server at ${server} (${request.method} ${request.path}): ${reason}`,
    { cause: error },
  );
}

function errorText(error: unknown): string {
  if (error instanceof Error) {
    // A lost connection's code (ECONNRESET) is its cause's.
    const code = (error as { code?: string }).code ?? (error.cause as { code?: string } | undefined)?.code;
    return code && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
  }
  return String(error);
}

interface StatusBody {
  kind?: string;
  reason?: string;
  message?: string;
  details?: { retryAfterSeconds?: number };
}

async function apiError(response: Answer): Promise<KubeApiError> {
  const text = await response.text();
  let status: StatusBody = {};
  try {
    status = JSON.parse(text) as StatusBody;
  } catch {
    status = { message: text.slice(0, 500) };
  }
  const retryAfter = Number(response.headers.get("Retry-After") ?? status.details?.retryAfterSeconds ?? Number.NaN);
  return new KubeApiError(
    response.status,
    status.reason ?? response.statusText,
    status.message ?? `HTTP ${response.status}`,
    Number.isNaN(retryAfter) ? undefined : retryAfter,
  );
}
