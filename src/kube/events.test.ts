import { describe, expect, test } from "bun:test";
import type { KubeApi } from "./api.ts";
import { createEventSink } from "./events.ts";
import type { KubeObject } from "./objects.ts";
import { createLogger } from "../log/logger.ts";
import type { Clock } from "../util/clock.ts";
import { KubeUnreachableError } from "./transport.ts";

interface Gate {
  readonly api: KubeApi;
  /** `create <involved object>` / `patch <event name> count=<n>`, in completion order. */
  readonly sent: string[];
  /** Whether each write asked to be sent as a background request. */
  readonly background: boolean[];
  readonly maxInFlight: () => number;
  open(): void;
}

/** Event writes that wait until `open()`, counting how many are in flight at once. */
function gatedApi(): Gate {
  const sent: string[] = [];
  const background: boolean[] = [];
  let inFlight = 0;
  let max = 0;
  let release = (): void => undefined;
  const opened = new Promise<void>((resolve) => (release = resolve));
  const write = async (line: string): Promise<void> => {
    inFlight += 1;
    max = Math.max(max, inFlight);
    await opened;
    inFlight -= 1;
    sent.push(line);
  };
  const api = {
    createVersion: async (
      _res: unknown,
      body: { involvedObject: { name: string } },
      target?: { background?: boolean },
    ) => {
      background.push(target?.background === true);
      await write(`create ${body.involvedObject.name}`);
      return "1";
    },
    patchVersion: async (_res: unknown, name: string, patch: { count: number }, target: { background?: boolean }) => {
      background.push(target.background === true);
      await write(`patch ${name.split(".")[0] ?? ""} count=${patch.count}`);
      return "1";
    },
  };
  return { api: api as unknown as KubeApi, sent, background, maxInFlight: () => max, open: release };
}

const node = (name: string): KubeObject => ({ apiVersion: "v1", kind: "Node", metadata: { name, uid: `uid-${name}` } });
const quiet = createLogger({ verbosity: 0, format: "text", write: () => undefined });

describe("event sink", () => {
  test("up to 8 events in flight; a repeat waits for the first and patches its count", async () => {
    const gate = gatedApi();
    const sink = createEventSink({ api: gate.api, logger: quiet, host: "h" });
    const recorder = sink.recorder("test");
    for (let i = 0; i < 20; i++) recorder.event(node(`n${i}`), "Normal", "Synced", "Node synced successfully");
    recorder.event(node("n0"), "Normal", "Synced", "Node synced successfully");
    const stop = new AbortController();
    const running = sink.run(stop.signal);
    await Bun.sleep(20);
    expect(gate.maxInFlight()).toBe(8);
    gate.open();
    await Bun.sleep(20);
    stop.abort();
    await running;
    expect(gate.sent.filter((s) => s.startsWith("create"))).toHaveLength(20);
    expect(gate.sent.filter((s) => s.startsWith("patch"))).toEqual(["patch n0 count=2"]);
    expect(gate.sent.indexOf("create n0")).toBeLessThan(gate.sent.indexOf("patch n0 count=2"));
    // Every write is a background request: it never takes a rate-limit token a controller waits for.
    expect(gate.background).toEqual(Array<boolean>(21).fill(true));
  });

  test.each([
    { share: undefined, held: 10_000, senders: 8, over: 5 },
    { share: 1 / 4, held: 2_500, senders: 2, over: 3 },
  ])(
    "a full queue drops the oldest events; share $share of the process's bounds holds $held and sends $senders at once",
    async ({ share, held, senders, over }) => {
      const gate = gatedApi();
      const drops: string[] = [];
      const sink = createEventSink({ api: gate.api, logger: quiet, host: "h", share, onDrop: (r) => drops.push(r) });
      const recorder = sink.recorder("test");
      for (let i = 0; i < held + over; i++)
        recorder.event(node(`n${i}`), "Normal", "Synced", "Node synced successfully");
      expect(drops).toEqual(Array<string>(over).fill("full"));
      const stop = new AbortController();
      const running = sink.run(stop.signal);
      await Bun.sleep(5);
      expect(gate.maxInFlight()).toBe(senders);
      gate.open();
      stop.abort();
      await running;
      expect(gate.sent).toHaveLength(held);
      expect(gate.sent).not.toContain(`create n${over - 1}`);
      expect(gate.sent).toContain(`create n${over}`);
    },
  );

  test("on shutdown, sends still waiting for a spare token give up after the flush window", async () => {
    let aborted = 0;
    const api = {
      // A send that never gets its token: it ends only when its signal aborts.
      createVersion: (_res: unknown, _body: unknown, target: { signal?: AbortSignal }) =>
        new Promise((_resolve, reject) =>
          target.signal?.addEventListener("abort", () => ((aborted += 1), reject(new Error("aborted"))), {
            once: true,
          }),
        ),
    };
    const drops: string[] = [];
    const sink = createEventSink({
      api: api as unknown as KubeApi,
      logger: quiet,
      host: "h",
      onDrop: (reason) => drops.push(reason),
    });
    for (let i = 0; i < 20; i++)
      sink.recorder("test").event(node(`n${i}`), "Normal", "Synced", "Node synced successfully");
    const stop = new AbortController();
    const running = sink.run(stop.signal);
    await Bun.sleep(20);
    stop.abort();
    const ended = await Promise.race([running.then(() => true), Bun.sleep(5000).then(() => false)]);
    expect(ended).toBe(true);
    expect(aborted).toBe(8);
    expect(drops).toEqual([...Array<string>(8).fill("error"), ...Array<string>(12).fill("full")]);
  });

  test("a send that did not reach the API server is tried again (12 tries, as client-go); a refusal is not", async () => {
    const tries = new Map<string, number>();
    const waits: number[] = [];
    let now = 1_000_000;
    // Sleeps pass at once, moving the time on.
    const clock: Clock = {
      now: () => now,
      sleep: (ms) => ((now += ms), waits.push(ms), Promise.resolve()),
    };
    const api = {
      createVersion: (_res: unknown, body: { involvedObject: { name: string } }) => {
        const name = body.involvedObject.name;
        const n = (tries.get(name) ?? 0) + 1;
        tries.set(name, n);
        if (name === "refused") return Promise.reject(new Error("events is forbidden"));
        if (name === "down" || n < 3) return Promise.reject(new KubeUnreachableError("connection refused"));
        return Promise.resolve("1");
      },
    };
    const drops: string[] = [];
    const sink = createEventSink({
      api: api as unknown as KubeApi,
      logger: quiet,
      host: "h",
      clock,
      onDrop: (r) => drops.push(r),
    });
    for (const name of ["back", "refused", "down"]) sink.recorder("test").event(node(name), "Normal", "Synced", "x");
    const stop = new AbortController();
    const running = sink.run(stop.signal);
    for (let i = 0; i < 50 && (tries.get("down") ?? 0) < 12; i++) await Bun.sleep(5);
    stop.abort();
    await running;
    expect(Object.fromEntries(tries)).toEqual({ back: 3, refused: 1, down: 12 });
    expect(drops).toEqual(["error", "error"]);
    expect(waits.filter((ms) => ms === 10_000).length).toBeGreaterThanOrEqual(10);
  });

  test("the tenth different message of one reason on one object within 10 minutes is combined, as client-go's EventAggregator", async () => {
    const writes: string[] = [];
    const api = {
      createVersion: (_res: unknown, body: { metadata: { name: string }; message: string }) => {
        writes.push(`create ${body.message}`);
        return Promise.resolve("1");
      },
      patchVersion: (_res: unknown, _name: string, patch: { count: number; message: string }) => {
        writes.push(`patch count=${patch.count} ${patch.message}`);
        return Promise.resolve("1");
      },
    };
    const sink = createEventSink({ api: api as unknown as KubeApi, logger: quiet, host: "h" });
    const recorder = sink.recorder("service-controller");
    const service: KubeObject = {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "web", namespace: "a", uid: "u" },
    };
    const stop = new AbortController();
    const running = sink.run(stop.signal);
    const settle = async (n: number): Promise<void> => {
      for (let i = 0; i < 100 && writes.length < n; i++) await Bun.sleep(2);
    };
    for (let i = 1; i <= 12; i++) {
      recorder.event(service, "Warning", "SyncLoadBalancerFailed", `failed: request ${i}`);
      await settle(i);
    }
    recorder.event(service, "Warning", "SyncLoadBalancerFailed", "failed: request 5");
    await settle(13);
    recorder.event(node("n"), "Warning", "SyncLoadBalancerFailed", "failed: request 13");
    await settle(14);
    stop.abort();
    await running;
    const combined = "(combined from similar events): failed: request";
    expect(writes).toEqual([
      ...Array.from({ length: 9 }, (_, i) => `create failed: request ${i + 1}`),
      `create ${combined} 10`,
      `patch count=2 ${combined} 11`,
      `patch count=3 ${combined} 12`,
      // Still one of the nine messages remembered: a repeat of its own event; another object's is its own.
      "patch count=2 failed: request 5",
      "create failed: request 13",
    ]);
  });
});
