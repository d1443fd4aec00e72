/**
 * The informer against a small API server whose first watch goes silent (a connection whose server
 * vanished without a FIN or RST): the watch is given up and opened again, and the cache moves on.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { localApi } from "../../test/harness/local-api.ts";
import { createLogger } from "../log/logger.ts";
import { NODES } from "./api.ts";
import { Informer } from "./informer.ts";
import type { Node } from "./objects.ts";

let watches = 0;
const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch(request) {
    if (!new URL(request.url).searchParams.has("watch"))
      return Response.json({ kind: "NodeList", apiVersion: "v1", metadata: { resourceVersion: "1" }, items: [] });
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
  },
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
});
