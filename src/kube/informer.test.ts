/**
 * The informer against small API servers: a first watch that goes silent (a connection whose server
 * vanished without a FIN or RST) is given up and opened again, and the cache moves on; the backoff of
 * failing watches starts over after a quiet spell.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { localApi } from "../../test/harness/local-api.ts";
import { createLogger } from "../log/logger.ts";
import { NODES } from "./api.ts";
import { Informer } from "./informer.ts";
import type { Node } from "./objects.ts";

/** A small API server: an empty Node list for a list, `watch(request)` for a watch. */
function apiServer(watch: (request: Request) => Response): ReturnType<typeof Bun.serve> {
  return Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request) {
      if (new URL(request.url).searchParams.has("watch")) return watch(request);
      return Response.json({ kind: "NodeList", apiVersion: "v1", metadata: { resourceVersion: "1" }, items: [] });
    },
  });
}

let watches = 0;
const server = apiServer(() => {
  watches++;
  // The first watch answers its head, then nothing ever again; the next one brings a Node.
  const event = {
    type: "ADDED",
    object: { kind: "Node", apiVersion: "v1", metadata: { name: "late", resourceVersion: "2" } },
  };
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      if (watches > 1) controller.enqueue(new TextEncoder().encode(`${JSON.stringify(event)}\n`));
    },
  });
  return new Response(body, { headers: { "Content-Type": "application/json" } });
});
afterAll(() => void server.stop(true));

describe("informer", () => {
  test("a watch that reads nothing for the idle limit is opened again", async () => {
    const informer = new Informer<Node>({
      api: localApi(server.port),
      resource: NODES,
      logger: createLogger({ verbosity: 0, format: "text", write: () => undefined }),
      watchIdleLimitMs: 400,
    });
    const stop = new AbortController();
    const running = informer.run(stop.signal);
    const deadline = Date.now() + 10_000;
    while (!informer.get("late") && Date.now() < deadline) await Bun.sleep(50);
    stop.abort();
    await running;
    expect(informer.get("late")?.metadata.resourceVersion).toBe("2");
    expect(watches).toBe(2);
  });

  test("the watch's backoff starts over after two minutes without a failure", async () => {
    let now = 1_000_000;
    const sleeps: number[] = [];
    let failing = 0;
    const flaky = apiServer(() => {
      // The fourth watch ran for five minutes before it failed.
      if (++failing === 4) now += 300_000;
      return Response.json({ kind: "Status", code: 500, reason: "InternalError" }, { status: 500 });
    });
    const stop = new AbortController();
    const informer = new Informer<Node>({
      api: localApi(flaky.port),
      resource: NODES,
      logger: createLogger({ verbosity: 0, format: "text", write: () => undefined }),
      clock: {
        now: () => now,
        sleep: (ms) => {
          sleeps.push(ms);
          now += ms;
          if (sleeps.length === 4) stop.abort();
          return Promise.resolve();
        },
      },
    });
    await informer.run(stop.signal);
    await flaky.stop(true);
    const [first, second, third, afterQuiet] = sleeps as [number, number, number, number];
    expect(first).toBeLessThan(1600);
    expect(third).toBeGreaterThanOrEqual(3200);
    expect(second).toBeGreaterThanOrEqual(1600);
    expect(afterQuiet).toBeLessThan(1600);
  });
});
