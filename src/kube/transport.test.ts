import { afterAll, describe, expect, test } from "bun:test";
import { TokenBucket } from "./token-bucket.ts";
import { KubeUnreachableError, createTransport } from "./transport.ts";
import type { Connection } from "./connection.ts";

/** A connection to a test server on loopback, in plain HTTP, without credentials. */
function plainHttp(port: number | undefined): Connection {
  return {
    server: `http://127.0.0.1:${port}`,
    tls: { rejectUnauthorized: false },
    authorization: () => Promise.resolve(undefined),
  };
}

describe("transport", () => {
  let inFlight = 0;
  let peak = 0;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      inFlight += 1;
      peak = Math.max(peak, inFlight);
      await Bun.sleep(10);
      inFlight -= 1;
      return Response.json({ path: new URL(req.url).pathname });
    },
  });
  afterAll(() => server.stop(true));
  const connection = plainHttp(server.port);

  test("at most maxInFlight requests on the wire; the others wait and all complete", async () => {
    const transport = createTransport({
      connection,
      limiter: TokenBucket.create(0, 0),
      userAgent: "test",
      maxInFlight: 3,
    });
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => transport.json<{ path: string }>({ method: "GET", path: `/r/${i}` })),
    );
    expect(answers.map((a) => a.path)).toEqual(Array.from({ length: 12 }, (_, i) => `/r/${i}`));
    expect(peak).toBe(3);
  });

  test("a background request waits until no other request holds a reservation on the rate limit", async () => {
    const transport = createTransport({ connection, limiter: TokenBucket.create(20, 1), userAgent: "test" });
    const done: string[] = [];
    const send = (path: string, background?: boolean): Promise<void> =>
      transport.json({ method: "POST", path, background }).then(() => void done.push(path));
    // The burst token goes to /first; /event asks before /second and /third, yet they are served first.
    const first = send("/first");
    const event = send("/event", true);
    await Promise.all([first, event, send("/second"), send("/third")]);
    expect(done).toEqual(["/first", "/second", "/third", "/event"]);
  });

  test.each([
    ["the rate limit", { limiter: TokenBucket.create(50, 1) }],
    ["the wire", { limiter: TokenBucket.create(0, 0), maxInFlight: 1 }],
  ])("an urgent request waiting for %s goes before the others that wait", async (_, limits) => {
    const transport = createTransport({ connection, userAgent: "test", ...limits });
    const done: string[] = [];
    const send = (path: string, urgent?: boolean): Promise<void> =>
      transport.json({ method: "PATCH", path, urgent }).then(() => void done.push(path));
    const first = send("/node-a");
    const others = [send("/node-b"), send("/node-c")];
    const addresses = send("/node-a/status", true);
    await Promise.all([first, ...others, addresses]);
    expect(done).toEqual(["/node-a", "/node-a/status", "/node-b", "/node-c"]);
  });

  test("a background request waits for the wire behind every write", async () => {
    const transport = createTransport({
      connection,
      userAgent: "test",
      limiter: TokenBucket.create(0, 0),
      maxInFlight: 1,
    });
    const done: string[] = [];
    const send = (path: string, background?: boolean): Promise<void> =>
      transport.json({ method: "POST", path, background }).then(() => void done.push(path));
    await Promise.all([send("/first"), send("/event", true), send("/second")]);
    expect(done).toEqual(["/first", "/second", "/event"]);
  });
});

describe("transport retries and observations", () => {
  const answers: Response[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () => answers.shift() ?? Response.json({ ok: true }),
  });
  afterAll(() => server.stop(true));
  const connection = plainHttp(server.port);
  const tooMany = (retryAfter?: string): Response =>
    Response.json(
      { kind: "Status", reason: "TooManyRequests", message: "slow down" },
      { status: 429, headers: retryAfter === undefined ? {} : { "Retry-After": retryAfter } },
    );

  test("a 429 with Retry-After is sent again (each retry counted); sizes and token waits are observed", async () => {
    const seen: string[] = [];
    const metrics = {
      rateLimited: (verb: string) => void seen.push(`wait ${verb}`),
      sizes: (verb: string, req: number, res: number) => void seen.push(`size ${verb} ${req} ${res}`),
      retried: (verb: string, code: string) => void seen.push(`retry ${verb} ${code}`),
    };
    const transport = createTransport({ connection, limiter: TokenBucket.create(0, 0), userAgent: "test", metrics });
    answers.push(tooMany("0"), tooMany("0"));
    expect(await transport.json({ method: "POST", path: "/x", body: { a: 1 } })).toEqual({ ok: true });
    expect(seen).toEqual(["wait POST", "retry POST 429", "wait POST", "retry POST 429", "wait POST", "size POST 7 11"]);
  });

  test("without Retry-After, or past maxRetries, the error reaches the caller", async () => {
    const transport = createTransport({
      connection,
      limiter: TokenBucket.create(0, 0),
      userAgent: "test",
      maxRetries: 1,
    });
    answers.push(tooMany());
    await expect(transport.json({ method: "GET", path: "/x" })).rejects.toHaveProperty("status", 429);
    answers.push(tooMany("0"), tooMany("0"));
    await expect(transport.json({ method: "GET", path: "/x" })).rejects.toHaveProperty("status", 429);
    expect(answers).toEqual([]);
  });
});

describe("transport timeouts and URLs", () => {
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const url = new URL(req.url);
      if (url.pathname === "/slow-headers") await Bun.sleep(2000);
      if (url.pathname === "/slow-body") {
        const body = new ReadableStream({
          async start(controller) {
            controller.enqueue(new TextEncoder().encode('{"a":'));
            await Bun.sleep(2000);
            controller.enqueue(new TextEncoder().encode("1}"));
            controller.close();
          },
        });
        return new Response(body, { headers: { "Content-Type": "application/json" } });
      }
      return Response.json({ url: `${url.pathname}${url.search}` });
    },
  });
  afterAll(() => server.stop(true));
  const connection = plainHttp(server.port);
  const transport = createTransport({
    connection,
    limiter: TokenBucket.create(0, 0),
    userAgent: "test",
    maxRetries: 0,
  });

  test.each(["/slow-headers", "/slow-body"])("one timer covers the whole exchange: %s", async (path) => {
    const error = await transport.json({ method: "GET", path, timeoutMs: 200 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubeUnreachableError);
    expect((error as Error).message).toContain("no answer within 200 ms");
  });

  test("the caller's signal aborts the request, and is not reported as the server unreachable", async () => {
    const caller = new AbortController();
    const pending = transport
      .json({ method: "GET", path: "/slow-headers", signal: caller.signal })
      .catch((e: unknown) => e);
    setTimeout(() => caller.abort(new Error("shutting down")), 50);
    const error = await pending;
    expect(error).not.toBeInstanceOf(KubeUnreachableError);
    expect(error).toBeInstanceOf(Error);
  });

  test("query values are percent-encoded; unset and empty ones are left out", async () => {
    const answer = await transport.json<{ url: string }>({
      method: "GET",
      path: "/api/v1/nodes",
      query: { labelSelector: "a in (x,y)", fieldSelector: "", limit: 500, continue: undefined, watch: true },
    });
    expect(answer.url).toBe("/api/v1/nodes?labelSelector=a%20in%20(x%2Cy)&limit=500&watch=true");
    expect((await transport.json<{ url: string }>({ method: "GET", path: "/x", query: {} })).url).toBe("/x");
  });
});

describe("transport: a connection lost before the answer is whole", () => {
  // Each connection's first request is answered with half a body, then the connection ends; the next
  // connection answers whole.
  let connections = 0;
  const listener = Bun.listen<undefined>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      data(socket) {
        connections += 1;
        const body = '{"ok":true}';
        const head = `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
        if (connections % 2 === 1) {
          socket.write(`${head}{"ok"`);
          socket.end();
        } else socket.write(head + body);
      },
    },
  });
  afterAll(() => listener.stop(true));
  const connection = plainHttp(listener.port);

  test("a GET is sent again after a second, as client-go does; a write is not, and fails unreachable", async () => {
    const retries: string[] = [];
    const metrics = {
      rateLimited: () => undefined,
      sizes: () => undefined,
      retried: (v: string, c: string) => void retries.push(`${v} ${c}`),
    };
    const transport = createTransport({ connection, limiter: TokenBucket.create(0, 0), userAgent: "test", metrics });
    const started = performance.now();
    expect(await transport.json({ method: "GET", path: "/x" })).toEqual({ ok: true });
    expect(performance.now() - started).toBeGreaterThanOrEqual(950);
    expect(retries).toEqual(["GET <error>"]);
    const write = transport.json({ method: "PATCH", path: "/x", body: {} });
    await expect(write).rejects.toBeInstanceOf(KubeUnreachableError);
    expect(retries).toEqual(["GET <error>"]);
  });
});
