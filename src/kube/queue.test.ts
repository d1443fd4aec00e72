import { describe, expect, test } from "bun:test";
import { WorkQueue } from "./queue.ts";
import { bucketLimiter, exponentialLimiter, maxOfLimiters } from "./rate-limiters.ts";
import { shardOf } from "./shard.ts";

const queue = (): WorkQueue => new WorkQueue({ name: "test", rateLimiter: exponentialLimiter(5, 1000) });

describe("WorkQueue (client-go semantics)", () => {
  test("a key waiting in the queue is not added twice", async () => {
    const q = queue();
    q.add("a");
    q.add("a");
    q.add("b");
    expect(q.length).toBe(2);
    expect(await q.get()).toBe("a");
    expect(await q.get()).toBe("b");
  });

  test("a key being processed is not handed out again until done, then runs once more", async () => {
    const q = queue();
    q.add("a");
    const key = await q.get();
    q.add("a");
    q.add("a");
    expect(q.length).toBe(0);
    q.done(key!);
    expect(q.length).toBe(1);
    expect(await q.get()).toBe("a");
    q.done("a");
    expect(q.length).toBe(0);
  });

  test("a waiting worker receives the next key", async () => {
    const q = queue();
    const pending = q.get();
    q.add("x");
    expect(await pending).toBe("x");
  });

  test("addAfter keeps the earliest pending time and delivers once", async () => {
    const q = queue();
    q.addAfter("k", 200);
    q.addAfter("k", 10);
    q.addAfter("k", 500);
    expect(await q.get()).toBe("k");
    q.done("k");
    await Bun.sleep(550);
    expect(q.length).toBe(0);
  });

  test("a sharded queue takes only its keys, on every path in; together the shards take each key once", async () => {
    const keys = Array.from({ length: 40 }, (_, i) => `ns/svc-${i}`);
    const shards = [0, 1].map(
      (index) => new WorkQueue({ name: "test", rateLimiter: exponentialLimiter(1, 1), shard: { index, count: 2 } }),
    );
    for (const q of shards) for (const key of keys) q.addAfter(key, 5);
    await Bun.sleep(30);
    const taken = await Promise.all(
      shards.map(async (q) =>
        Array.from({ length: q.length }, () => q.get()).reduce<Promise<string[]>>(
          async (all, next) => [...(await all), (await next)!],
          Promise.resolve([]),
        ),
      ),
    );
    expect(taken.flat().sort()).toEqual([...keys].sort());
    for (const [index, mine] of taken.entries()) {
      expect(mine.length).toBeGreaterThan(0);
      for (const key of mine) expect(shardOf(key, 2)).toBe(index);
    }
    const other = keys.find((key) => shardOf(key, 2) === 1)!;
    shards[0]!.add(other);
    shards[0]!.addRateLimited(other);
    expect(shards[0]!.owns(other)).toBe(false);
    expect(shards[0]!.length).toBe(0);
  });

  test("rate-limited requeues back off per key and forget resets", () => {
    const limiter = exponentialLimiter(5, 40);
    expect([limiter.when("a"), limiter.when("a"), limiter.when("a"), limiter.when("a"), limiter.when("a")]).toEqual([
      5, 10, 20, 40, 40,
    ]);
    expect(limiter.when("b")).toBe(5);
    limiter.forget("a");
    expect(limiter.when("a")).toBe(5);
  });

  test("the overall bucket slows a flood of failures", () => {
    let now = 0;
    const limiter = maxOfLimiters(
      exponentialLimiter(0, 0),
      bucketLimiter(10, 2, () => now),
    );
    expect([limiter.when("a"), limiter.when("b"), limiter.when("c")]).toEqual([0, 0, 100]);
    now = 1000;
    expect(limiter.when("d")).toBe(0);
  });

  test("shutDownWithDrain waits for in-flight keys and releases waiting workers", async () => {
    const q = queue();
    q.add("busy");
    const key = await q.get();
    const idle = q.get();
    let drained = false;
    const drain = q.shutDownWithDrain().then(() => (drained = true));
    expect(await idle).toBeUndefined();
    await Bun.sleep(10);
    expect(drained).toBe(false);
    q.done(key!);
    await drain;
    expect(drained).toBe(true);
    q.add("late");
    expect(await q.get()).toBeUndefined();
  });
});
