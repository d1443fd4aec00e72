/**
 * One kept-alive HTTP/1.1 connection to the API server over a `Bun.connect` socket: one exchange at a
 * time, the request written in full (the rest on `drain`), the answer read by a ResponseParser, and the
 * socket handed back for the next request when the answer allows it.
 */
import type { Socket, SocketHandler } from "bun";
import { onAbort } from "../../util/abort.ts";
import { abortReason } from "../../util/clock.ts";
import { ResponseParser, type ResponseHead } from "./response-parser.ts";

export interface Origin {
  readonly hostname: string;
  readonly port: number;
  /** The Host header: the server URL's host, port included when it is not the default. */
  readonly host: string;
  readonly tls: BunTls | undefined;
}

export interface BunTls {
  readonly ca?: string;
  readonly cert?: string;
  readonly key?: string;
  readonly rejectUnauthorized: boolean;
  readonly serverName?: string;
}

/** What an exchange reports, in order: the head, then body pieces, then the end or a failure. */
export interface ExchangeEvents {
  head(head: ResponseHead): void;
  body(bytes: Buffer): void;
  end(): void;
  fail(error: Error): void;
}

/** A kept-alive connection was closed by the server before it answered: the request can go on another. */
export class StaleConnectionError extends Error {
  override readonly name = "StaleConnectionError";
}

/**
 * The connection ended or was reset, not by us, after the request went out and before its answer was
 * whole: what client-go calls a connection reset or a probable EOF. Only a GET may be sent again.
 */
export class ConnectionLostError extends Error {
  override readonly name = "ConnectionLostError";
}

interface Exchange {
  readonly parser: ResponseParser;
  readonly events: ExchangeEvents;
  answered: boolean;
}

/** As client-go's dialer: a connection (TLS included) not made within this is an error. */
const CONNECT_TIMEOUT_MS = 30_000;
/** TCP keepalive after this long without traffic (Go's net.Dialer default, which client-go uses). */
const KEEPALIVE_DELAY_MS = 30_000;

export class Link {
  #socket: Socket<Link> | undefined;
  #exchange: Exchange | undefined;
  #unsent: Buffer | undefined;
  #exchanges = 0;
  #opening: { resolve(link: Link): void; reject(error: Error): void } | undefined;
  #closed = false;
  #abandoned = false;
  readonly #onClose: (link: Link) => void;
  /** Whether the socket is TLS: it is open once the handshake is done, not when TCP connects. */
  readonly #tls: boolean;
  readonly #verifies: boolean;
  /** performance.now() when the last exchange ended. */
  idleSince = 0;

  private constructor(origin: Origin, onClose: (link: Link) => void) {
    this.#onClose = onClose;
    this.#tls = origin.tls !== undefined;
    this.#verifies = origin.tls?.rejectUnauthorized ?? true;
  }

  /** A connected link (TLS handshake done and, unless verification is off, verified). */
  static open(origin: Origin, onClose: (link: Link) => void, signal?: AbortSignal): Promise<Link> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    const link = new Link(origin, onClose);
    const unsubscribe = onAbort(signal, () => link.abandon(abortReason(signal)));
    // A watch has no deadline of its own: a server that never completes the handshake must still fail.
    const timer = setTimeout(
      () => link.destroy(new Error(`no connection within ${CONNECT_TIMEOUT_MS} ms`)),
      CONNECT_TIMEOUT_MS,
    );
    const opened = new Promise<Link>((resolve, reject) => {
      link.#opening = { resolve, reject };
      Bun.connect<Link>({
        hostname: origin.hostname,
        port: origin.port,
        tls: origin.tls ?? false,
        data: link,
        socket: HANDLERS,
      }).then(
        (socket) => (link.#closed ? socket.terminate() : undefined),
        (error: unknown) => link.#close(asError(error)),
      );
    });
    return opened.finally(() => {
      clearTimeout(timer);
      unsubscribe();
    });
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Sends one request; `events` hears the answer. The link must be idle. */
  send(request: Buffer, events: ExchangeEvents): void {
    if (this.#closed || this.#socket === undefined) {
      const error = new Error("the connection closed before the request was sent");
      events.fail(this.#exchanges > 0 ? new StaleConnectionError(error.message) : error);
      return;
    }
    const parser = new ResponseParser({
      head: (head) => events.head(head),
      body: (bytes) => events.body(bytes),
      end: () => this.#ended(exchange),
    });
    const exchange: Exchange = { events, parser, answered: false };
    this.#exchange = exchange;
    this.#exchanges++;
    this.#socket.ref();
    this.#write(request);
  }

  /**
   * Ends the connection at once because the caller gave up (an abort, a cancelled stream): what was in
   * flight fails with `reason` and is never sent again, whatever the connection had carried before.
   */
  abandon(reason: Error): void {
    this.#abandoned = true;
    this.destroy(reason);
  }

  /** Stops reading the socket: the kernel keeps what arrives, and the server feels it as TCP backpressure. */
  pause(): void {
    this.#socket?.pause();
  }

  /** Reads the socket again after `pause`. */
  resume(): void {
    this.#socket?.resume();
  }

  /** Ends the connection at once (a broken answer, a failed handshake, an idle link past its time). */
  destroy(reason?: Error): void {
    this.#close(reason); // first: terminating calls the close handler, which knows no reason
    this.#socket?.terminate();
  }

  #write(bytes: Buffer): void {
    const written = this.#socket?.write(bytes) ?? 0;
    this.#unsent = written < bytes.length ? bytes.subarray(Math.max(written, 0)) : undefined;
  }

  #ended(exchange: Exchange): void {
    if (this.#exchange !== exchange) return;
    this.#exchange = undefined;
    this.idleSince = performance.now();
    if (exchange.parser.reusable) this.#socket?.unref();
    else this.destroy();
    exchange.events.end();
  }

  #opened(socket: Socket<Link>, error?: Error): void {
    this.#socket = socket;
    if (error || this.#closed) return this.destroy(error); // rejects the opening, if still waited for
    this.#opening?.resolve(this);
    this.#opening = undefined;
  }

  #data(bytes: Buffer): void {
    const exchange = this.#exchange;
    if (exchange === undefined) return this.destroy(); // nothing asked: the connection is out of step
    exchange.answered = true;
    try {
      exchange.parser.feed(bytes);
    } catch (error) {
      this.destroy(asError(error));
    }
  }

  #close(reason?: Error): void {
    if (this.#closed) return;
    this.#closed = true;
    const cause = reason ?? new Error("the server closed the connection");
    this.#opening?.reject(cause);
    this.#opening = undefined;
    const exchange = this.#exchange;
    this.#exchange = undefined;
    if (exchange) this.#fail(exchange, cause);
    this.#onClose(this);
  }

  #fail(exchange: Exchange, cause: Error): void {
    let error = cause;
    try {
      exchange.parser.finish(); // an answer framed by the connection's end ends here
      if (exchange.parser.done) return exchange.events.end();
    } catch (cut) {
      // Ended by us (an abort, a timeout): the caller's own reason, as it gave it.
      if (exchange.answered && !this.#abandoned)
        error = new Error(`${(cut as Error).message}: ${cause.message}`, { cause });
    }
    // Not answered on a connection that had answered before: the server closed it unread (not us).
    const stale = !exchange.answered && this.#exchanges > 1 && !this.#abandoned;
    if (stale) return exchange.events.fail(new StaleConnectionError(cause.message, { cause }));
    exchange.events.fail(this.#abandoned ? error : new ConnectionLostError(error.message, { cause: error }));
  }

  static handlers(): SocketHandler<Link> {
    return {
      open(socket) {
        socket.data.#socket = socket;
        // As Go's dialer: a peer gone without a word is found out, and a watch on it fails instead of waiting.
        socket.setKeepAlive(true, KEEPALIVE_DELAY_MS);
        if (!socket.data.#tls) socket.data.#opened(socket);
      },
      handshake(socket, success, error) {
        const verified = success || !socket.data.#verifies;
        socket.data.#opened(socket, verified ? undefined : asError(error));
      },
      data: (socket, bytes) => socket.data.#data(bytes),
      drain(socket) {
        const unsent = socket.data.#unsent;
        if (unsent) socket.data.#write(unsent);
      },
      end: (socket) => socket.data.destroy(),
      close: (socket, error) => socket.data.#close(error),
      error: (socket, error) => socket.data.destroy(error),
      connectError: (socket, error) => socket.data.#close(error),
    };
  }
}

const HANDLERS = Link.handlers();

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
