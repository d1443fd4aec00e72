import { afterAll, afterEach, describe, expect, test } from "bun:test";
import type { Socket, TCPSocketListener } from "bun";
import { createServer as createTlsServer } from "node:tls";
import { connectProxy } from "../../../test/harness/connect-proxy.ts";
import { issueCertificate } from "../../pki/x509.ts";
import { ExchangeTimeoutError, fetchClient, socketClient } from "./client.ts";

const PLAIN = { rejectUnauthorized: true };

interface Received {
  readonly connection: number;
  readonly head: string;
  readonly body: string;
}

/** What the server does with a request: write an answer (and maybe close), or close without one. */
type Behaviour = (request: Received, socket: Socket<Conn>) => void;

interface Conn {
  id: number;
  buffered: string;
}

/** A raw HTTP/1.1 server on a TCP port: each request, parsed by Content-Length, goes to `behaviour`. */
interface RawServer {
  readonly listener: TCPSocketListener<Conn>;
  readonly received: Received[];
  /** The server's connection numbers, in the order they closed. */
  readonly closed: number[];
}

function rawServer(behaviour: Behaviour): RawServer {
  const received: Received[] = [];
  const closed: number[] = [];
  let connections = 0;
  const listener = Bun.listen<Conn>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open: (socket) => void (socket.data = { id: ++connections, buffered: "" }),
      close: (socket) => void closed.push(socket.data.id),
      data(socket, bytes) {
        socket.data.buffered += bytes.toString("utf8");
        for (;;) {
          const text = socket.data.buffered;
          const end = text.indexOf("\r\n\r\n");
          if (end < 0) return;
          const length = Number(/content-length: *(\d+)/i.exec(text.slice(0, end))?.[1] ?? 0);
          if (Buffer.byteLength(text.slice(end + 4)) < length) return;
          const body = text.slice(end + 4, end + 4 + length);
          socket.data.buffered = text.slice(end + 4 + length);
          const request = { connection: socket.data.id, head: text.slice(0, end), body };
          received.push(request);
          behaviour(request, socket);
        }
      },
    },
  });
  servers.push(listener);
  return { listener, received, closed };
}

const servers: { stop(force?: boolean): void }[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.stop(true);
});

const ok = (body: string, extra = ""): string =>
  `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n${extra}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

const answerWith =
  (body: string): Behaviour =>
  (_, socket) =>
    socket.write(ok(body));

describe("socketClient", () => {
  test("sends the request as written and reuses one kept-alive connection", async () => {
    const { listener, received } = rawServer(answerWith('{"kind":"Node"}'));
    const client = socketClient(`http://127.0.0.1:${listener.port}/prefix/`, PLAIN);
    for (let i = 0; i < 5; i++) {
      const answer = await client.send(`/api/v1/nodes/n${i}?fieldManager=ccm`, {
        method: "PATCH",
        headers: { "Content-Type": "application/merge-patch+json", Authorization: "Bearer t" },
        body: '{"spec":{"providerID":"fake://é"}}',
      });
      expect(answer.status).toBe(200);
      expect(answer.ok).toBe(true);
      expect(answer.headers.get("CONTENT-TYPE")).toBe("application/json");
      expect(await answer.text()).toBe('{"kind":"Node"}');
    }
    expect(received.map((r) => r.connection)).toEqual([1, 1, 1, 1, 1]);
    expect(received[4]?.head.split("\r\n")).toEqual([
      "PATCH /prefix/api/v1/nodes/n4?fieldManager=ccm HTTP/1.1",
      `Host: 127.0.0.1:${listener.port}`,
      "Content-Type: application/merge-patch+json",
      "Authorization: Bearer t",
      `Content-Length: ${Buffer.byteLength('{"spec":{"providerID":"fake://é"}}')}`,
    ]);
    expect(received[4]?.body).toBe('{"spec":{"providerID":"fake://é"}}');
  });

  test("requests at once go on connections of their own, each with its own answer", async () => {
    const { listener, received } = rawServer((request, socket) => {
      const name = /nodes\/(\w+)/.exec(request.head)?.[1] ?? "";
      setTimeout(() => socket.write(ok(JSON.stringify({ name }))), 5);
    });
    const client = socketClient(`http://127.0.0.1:${listener.port}`, PLAIN);
    const names = Array.from({ length: 8 }, (_, i) => `n${i}`);
    const nameOf = async (n: string): Promise<string> => {
      const answer = await client.send(`/api/v1/nodes/${n}`, { method: "GET", headers: {} });
      return (JSON.parse(await answer.text()) as { name: string }).name;
    };
    expect(await Promise.all(names.map(nameOf))).toEqual(names);
    expect(new Set(received.map((r) => r.connection)).size).toBe(8);
  });

  test("a connection idle for the idle time is closed by the client, and the next request opens another", async () => {
    const { listener, received, closed } = rawServer(answerWith("{}"));
    const client = socketClient(`http://127.0.0.1:${listener.port}`, PLAIN, { maxIdleMs: 50 });
    await client.send("/a", { method: "GET", headers: {} });
    await Bun.sleep(30);
    await client.send("/b", { method: "GET", headers: {} });
    expect(closed).toEqual([]);
    await Bun.sleep(150);
    expect(closed).toEqual([1]);
    await client.send("/c", { method: "GET", headers: {} });
    expect(received.map((r) => r.connection)).toEqual([1, 1, 2]);
  });

  test("a kept-alive connection the server closes without answering: the request goes again on a new one", async () => {
    const { listener, received } = rawServer((request, socket) => {
      if (request.connection === 1 && received.length > 1) socket.end();
      else socket.write(ok("{}"));
    });
    const client = socketClient(`http://127.0.0.1:${listener.port}`, PLAIN);
    await client.send("/a", { method: "GET", headers: {} });
    const answer = await client.send("/b", { method: "POST", headers: {}, body: "{}" });
    expect(await answer.text()).toBe("{}");
    expect(received.map((r) => [r.connection, r.head.split(" ")[1]])).toEqual([
      [1, "/a"],
      [1, "/b"],
      [2, "/b"],
    ]);
  });

  test("a new connection closed without an answer is an error, not sent again", async () => {
    const { listener, received } = rawServer((_, socket) => socket.end());
    const client = socketClient(`http://127.0.0.1:${listener.port}`, PLAIN);
    await expect(client.send("/a", { method: "GET", headers: {} })).rejects.toThrow(/closed/);
    await Bun.sleep(20);
    expect(received.length).toBe(1);
  });

  test("an answer cut short is an error, and the connection is not reused", async () => {
    const { listener, received } = rawServer((request, socket) => {
      if (request.connection === 1) socket.end("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc");
      else socket.write(ok("{}"));
    });
    const client = socketClient(`http://127.0.0.1:${listener.port}`, PLAIN);
    await expect(client.send("/a", { method: "GET", headers: {} })).rejects.toThrow(/closed before the response ended/);
    await Bun.sleep(20);
    expect(await (await client.send("/b", { method: "GET", headers: {} })).text()).toBe("{}");
    expect(received.map((r) => r.connection)).toEqual([1, 2]);
  });

  test("a stream answers at its head, gives its chunks as they come, and cancelling closes the connection", async () => {
    const { listener, closed } = rawServer((_, socket) => {
      socket.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
      socket.write('d\r\n{"type":"A"}\n\r\n');
      setTimeout(() => socket.write('d\r\n{"type":"B"}\n\r\n'), 20);
    });
    const client = socketClient(`http://127.0.0.1:${listener.port}`, PLAIN);
    const answer = await client.send("/watch", { method: "GET", headers: {}, stream: true });
    const reader = answer.body!.getReader();
    const seen: string[] = [];
    while (seen.join("").split("\n").length < 3) seen.push(Buffer.from((await reader.read()).value!).toString());
    expect(seen.join("")).toBe('{"type":"A"}\n{"type":"B"}\n');
    expect(closed).toEqual([]);
    await reader.cancel();
    await Bun.sleep(20);
    expect(closed).toEqual([1]);
  });

  test("a stream's connection is left unread for its pace: what came meanwhile is read at once after", async () => {
    const { listener } = rawServer((_, socket) => {
      socket.write('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nd\r\n{"type":"A"}\n\r\n');
      setTimeout(() => socket.write('d\r\n{"type":"B"}\n\r\n'), 30);
      setTimeout(() => socket.write('d\r\n{"type":"C"}\n\r\n'), 60);
    });
    const client = socketClient(`http://127.0.0.1:${listener.port}`, PLAIN);
    let paces = 0;
    const pace = (): number => (paces++, 150);
    const answer = await client.send("/watch", { method: "GET", headers: {}, stream: true, pace });
    const reader = answer.body!.getReader();
    const read = async (): Promise<[string, number]> => {
      const { value } = await reader.read();
      return [Buffer.from(value!).toString(), performance.now()];
    };
    const [a, atA] = await read();
    const [b, atB] = await read();
    const [c, atC] = await read();
    expect([a, b, c]).toEqual(['{"type":"A"}\n', '{"type":"B"}\n', '{"type":"C"}\n']);
    // B came 30 ms after A but was read after the pace's 150 ms; C, sent meanwhile, with it.
    expect(atB - atA).toBeGreaterThanOrEqual(140);
    expect(atC - atB).toBeLessThan(20);
    expect(paces).toBe(1);
    await reader.cancel();
  });

  test("a stream whose end comes during its pace frees the connection for the next request", async () => {
    const { listener, received } = rawServer((request, socket) => {
      if (!request.head.startsWith("GET /watch")) return socket.write(ok("{}"));
      socket.write('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nd\r\n{"type":"A"}\n\r\n');
      setTimeout(() => socket.write("0\r\n\r\n"), 20);
    });
    const client = socketClient(`http://127.0.0.1:${listener.port}`, PLAIN);
    const answer = await client.send("/watch", { method: "GET", headers: {}, stream: true, pace: () => 50 });
    expect(await new Response(answer.body).text()).toBe('{"type":"A"}\n');
    expect(await (await client.send("/after", { method: "GET", headers: {} })).text()).toBe("{}");
    expect(received.map((r) => r.connection)).toEqual([1, 1]);
  });

  test("an error answer to a stream is read whole, its Status kept", async () => {
    const status = JSON.stringify({ kind: "Status", reason: "Expired", message: "too old resource version" });
    const { listener } = rawServer((_, socket) =>
      socket.write(`HTTP/1.1 410 Gone\r\nContent-Length: ${status.length}\r\n\r\n${status}`),
    );
    const client = socketClient(`http://127.0.0.1:${listener.port}`, PLAIN);
    const answer = await client.send("/watch", { method: "GET", headers: {}, stream: true });
    expect(answer.status).toBe(410);
    expect(await answer.text()).toBe(status);
  });

  test("an abort ends the request with the signal's reason and drops the connection", async () => {
    const { listener, received } = rawServer((request, socket) => {
      if (request.connection > 1) socket.write(ok("{}"));
    });
    const client = socketClient(`http://127.0.0.1:${listener.port}`, PLAIN);
    const controller = new AbortController();
    const pending = client.send("/slow", { method: "GET", headers: {}, signal: controller.signal });
    await Bun.sleep(20);
    controller.abort(new Error("gave up"));
    await expect(pending).rejects.toThrow("gave up");
    await client.send("/next", { method: "GET", headers: {} });
    expect(received.map((r) => r.connection)).toEqual([1, 2]);
  });

  test("an abort on a reused connection is not taken for a stale one: the request is not sent again", async () => {
    const { listener, received } = rawServer((request, socket) => {
      if (received.length === 1) socket.write(ok("{}"));
    });
    const client = socketClient(`http://127.0.0.1:${listener.port}`, PLAIN);
    await client.send("/first", { method: "GET", headers: {} });
    const controller = new AbortController();
    const watch = client.send("/watch", { method: "GET", headers: {}, signal: controller.signal, stream: true });
    await Bun.sleep(20);
    controller.abort(new Error("stopping"));
    await expect(watch).rejects.toThrow("stopping");
    await Bun.sleep(20);
    expect(received.map((r) => [r.connection, r.head.split(" ")[1]])).toEqual([
      [1, "/first"],
      [1, "/watch"],
    ]);
  });

  test("a request whose signal has already fired sends nothing", async () => {
    const { listener, received } = rawServer(answerWith("{}"));
    const client = socketClient(`http://127.0.0.1:${listener.port}`, PLAIN);
    await client.send("/first", { method: "GET", headers: {} });
    const signal = AbortSignal.abort(new Error("already stopped"));
    await expect(client.send("/late", { method: "GET", headers: {}, signal })).rejects.toThrow("already stopped");
    await client.send("/again", { method: "GET", headers: {} });
    expect(received.map((r) => [r.connection, r.head.split(" ")[1]])).toEqual([
      [1, "/first"],
      [1, "/again"],
    ]);
  });

  test("a body larger than the socket takes at once arrives whole", async () => {
    const { listener, received } = rawServer((request, socket) => socket.write(ok(String(request.body.length))));
    const client = socketClient(`http://127.0.0.1:${listener.port}`, PLAIN);
    const body = JSON.stringify({ data: "x".repeat(8 << 20) });
    const answer = await client.send("/big", { method: "PUT", headers: {}, body });
    expect(await answer.text()).toBe(String(body.length));
    expect(received[0]?.body).toBe(body);
  });

  test("a header value or target that would split the request is refused before anything is sent", async () => {
    const { listener, received } = rawServer(answerWith("{}"));
    const client = socketClient(`http://127.0.0.1:${listener.port}`, PLAIN);
    await expect(
      client.send("/a", { method: "GET", headers: { Authorization: "Bearer x\r\nX-Evil: 1" } }),
    ).rejects.toThrow(TypeError);
    await expect(client.send("/a HTTP/1.1\r\nX: y", { method: "GET", headers: {} })).rejects.toThrow(TypeError);
    await Bun.sleep(20);
    expect(received).toEqual([]);
  });

  test("an unreachable server is an error naming the cause", async () => {
    const { listener } = rawServer(answerWith("{}"));
    const port = listener.port;
    listener.stop(true);
    const client = socketClient(`http://127.0.0.1:${port}`, PLAIN);
    await expect(client.send("/a", { method: "GET", headers: {} })).rejects.toThrow();
  });
});

describe("socketClient over TLS", () => {
  const ca = issueCertificate({ subject: { commonName: "test-ca" }, isCA: true });
  const serving = issueCertificate(
    { subject: { commonName: "apiserver" }, ipAddresses: ["127.0.0.1"], dnsNames: ["kubernetes"], serverAuth: true },
    ca,
  );
  const serve = (): number => {
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      tls: { cert: serving.certPem, key: serving.keyPem },
      fetch: (request) => new Response(JSON.stringify({ path: new URL(request.url).pathname })),
    });
    servers.push(server);
    return server.port ?? 0;
  };

  test("verifies the server against the CA and answers", async () => {
    const client = socketClient(`https://127.0.0.1:${serve()}`, { ca: ca.certPem, rejectUnauthorized: true });
    expect(await (await client.send("/version", { method: "GET", headers: {} })).text()).toBe('{"path":"/version"}');
  });

  test("checks the name the connection asks for (tls-server-name)", async () => {
    const port = serve();
    const named = socketClient(`https://127.0.0.1:${port}`, {
      ca: ca.certPem,
      rejectUnauthorized: true,
      serverName: "kubernetes",
    });
    expect((await named.send("/", { method: "GET", headers: {} })).status).toBe(200);
    const wrong = socketClient(`https://127.0.0.1:${port}`, {
      ca: ca.certPem,
      rejectUnauthorized: true,
      serverName: "other",
    });
    await expect(wrong.send("/", { method: "GET", headers: {} })).rejects.toThrow(/altnames|match/i);
  });

  test("refuses a server its CA did not sign, unless verification is off (insecure-skip-tls-verify)", async () => {
    const port = serve();
    const other = issueCertificate({ subject: { commonName: "other-ca" }, isCA: true });
    const strict = socketClient(`https://127.0.0.1:${port}`, { ca: other.certPem, rejectUnauthorized: true });
    await expect(strict.send("/", { method: "GET", headers: {} })).rejects.toThrow();
    const skipping = socketClient(`https://127.0.0.1:${port}`, { rejectUnauthorized: false });
    expect((await skipping.send("/", { method: "GET", headers: {} })).status).toBe(200);
  });
});

describe("fetchClient (through a proxy)", () => {
  /** A forward proxy for plain HTTP: it answers the absolute-form request itself, the body stalling. */
  const proxy = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const stall = new URL(request.url).pathname === "/stall-body";
      if (!stall) return new Response(JSON.stringify({ via: "proxy" }), { status: 200 });
      const body = new ReadableStream({
        async start(controller) {
          controller.enqueue(new TextEncoder().encode('{"a":'));
          await Bun.sleep(2000);
          controller.close();
        },
      });
      return new Response(body);
    },
  });
  afterAll(() => void proxy.stop(true));
  const client = fetchClient("http://apiserver.invalid:6443", { rejectUnauthorized: false }, proxy.url.href);

  test("answers read whole; a body that stalls past the request's time fails as a timeout", async () => {
    const answer = await client.send("/ok", { method: "GET", headers: {}, timeoutMs: 1000 });
    expect(await answer.text()).toBe('{"via":"proxy"}');
    const started = performance.now();
    const error = await client
      .send("/stall-body", { method: "GET", headers: {}, timeoutMs: 150 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExchangeTimeoutError);
    expect(performance.now() - started).toBeLessThan(1500);
  });
});

describe("fetchClient: a renewed client certificate through a CONNECT proxy", () => {
  const issuePair = (name: string): { cert: string; key: string } => {
    const pair = issueCertificate({ subject: { commonName: name }, clientAuth: true });
    return { cert: pair.certPem, key: pair.keyPem };
  };
  const serving = issueCertificate({ subject: { commonName: "apiserver" }, ipAddresses: ["127.0.0.1"] });
  /** A TLS server that answers each request with the common name of the client certificate it was shown. */
  const apiserver = createTlsServer(
    { cert: serving.certPem, key: serving.keyPem, requestCert: true, rejectUnauthorized: false },
    (socket) => {
      const name = String(socket.getPeerCertificate().subject?.CN ?? "none");
      socket.on("data", () => void socket.write(ok(JSON.stringify({ name }))));
    },
  );
  const { listener: proxy, targets: tunnels } = connectProxy();
  afterAll(() => {
    apiserver.close();
    proxy.stop(true);
  });

  test("requests after a renewal present the new pair, on a new tunnel", async () => {
    await new Promise<void>((resolve) => apiserver.listen(0, "127.0.0.1", resolve));
    const { port } = apiserver.address() as { port: number };
    const pair = issuePair("first");
    const files = new Map([
      ["/k/client.crt", pair.cert],
      ["/k/client.key", pair.key],
    ]);
    let now = 0;
    const tls = { ...pair, certFile: "/k/client.crt", keyFile: "/k/client.key", rejectUnauthorized: false };
    const read = (path: string): string => files.get(path) ?? "";
    const certificate = { read, now: () => now, intervalMs: 1000 };
    const client = fetchClient(`https://127.0.0.1:${port}`, tls, `http://127.0.0.1:${proxy.port}`, { certificate });
    const shown = async (): Promise<unknown> =>
      JSON.parse(await (await client.send("/", { method: "GET", headers: {} })).text());
    expect(await shown()).toEqual({ name: "first" });
    const renewed = issuePair("renewed");
    files.set("/k/client.crt", renewed.cert).set("/k/client.key", renewed.key);
    expect(await shown()).toEqual({ name: "first" });
    now += 1000;
    expect(await shown()).toEqual({ name: "renewed" });
    expect(await shown()).toEqual({ name: "renewed" });
    expect(tunnels).toHaveLength(2);
  });
});
