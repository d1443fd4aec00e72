import { afterEach, describe, expect, test } from "bun:test";
import { SharedSemaphore } from "./shared-semaphore.ts";

const WORKER = new URL("../../test/harness/shared-semaphore-worker.ts", import.meta.url).href;
let workers: Worker[] = [];
afterEach(() => {
  for (const w of workers) w.terminate();
  workers = [];
});

/** A thread that holds `count` slots until told to let go. */
async function holder(slots: SharedSemaphore, count: number): Promise<{ release: () => Promise<void> }> {
  const worker = new Worker(WORKER);
  workers.push(worker);
  const said = (what: string): Promise<void> =>
    new Promise((resolve) => worker.addEventListener("message", (e) => e.data === what && resolve()));
  const held = said("held");
  worker.postMessage({ type: "hold", shared: slots.shared, count });
  await held;
  return {
    release: async () => {
      const released = said("released");
      worker.postMessage({ type: "release" });
      await released;
    },
  };
}

describe("SharedSemaphore", () => {
  test("in one thread: at most the limit at once, waiters served in arrival order", async () => {
    const slots = SharedSemaphore.create(2);
    let running = 0;
    let peak = 0;
    const started: number[] = [];
    await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        slots.run(async () => {
          started.push(i);
          peak = Math.max(peak, ++running);
          await Bun.sleep(5);
          running -= 1;
        }),
      ),
    );
    expect(peak).toBe(2);
    expect(started).toEqual([0, 1, 2, 3, 4, 5]);
    expect(slots.held).toBe(0);
  });

  test("a slot is freed when the work fails", async () => {
    const slots = SharedSemaphore.create(1);
    expect(await slots.run(() => Promise.reject(new Error("boom"))).catch((e: unknown) => String(e))).toBe(
      "Error: boom",
    );
    expect(await slots.run(() => Promise.resolve("next"))).toBe("next");
  });

  test("threads draw from one limit: slots another thread holds are not this thread's, and its release wakes this one", async () => {
    const slots = SharedSemaphore.create(3);
    const other = await holder(slots, 2);
    expect(slots.held).toBe(2);
    const first = Promise.withResolvers<void>();
    let ran = 0;
    const mine = Promise.all([1, 2].map(() => slots.run(() => (++ran === 1 ? first.promise : Promise.resolve()))));
    await Bun.sleep(20);
    expect(ran).toBe(1);
    expect(slots.held).toBe(3);
    const started = performance.now();
    await other.release();
    while (ran < 2 && performance.now() - started < 1000) await Bun.sleep(1);
    expect(ran).toBe(2);
    first.resolve();
    await mine;
    expect(slots.held).toBe(0);
  });

  test("a thread that holds every slot keeps another waiting until it lets go", async () => {
    const slots = SharedSemaphore.create(2);
    const other = await holder(slots, 2);
    let ran = false;
    const mine = slots.run(() => Promise.resolve((ran = true)));
    await Bun.sleep(120);
    expect(ran).toBe(false);
    await other.release();
    await mine;
    expect(ran).toBe(true);
  });
});
