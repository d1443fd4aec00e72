import { describe, expect, test } from "bun:test";
import { TokenBucket } from "./token-bucket.ts";

test("the token bucket allows the burst, then spaces requests at qps", () => {
  const bucket = TokenBucket.create(10, 3);
  const now = Date.now();
  expect([bucket.reserve(now), bucket.reserve(now), bucket.reserve(now)]).toEqual([0, 0, 0]);
  expect(bucket.reserve(now)).toBeCloseTo(100, 0);
  expect(bucket.reserve(now)).toBeCloseTo(200, 0);
  expect(bucket.reserve(now + 1000)).toBe(0);
});

test("a bucket attached from its shared buffer draws from the same tokens", () => {
  const bucket = TokenBucket.create(1, 1);
  const other = TokenBucket.attach(bucket.shared);
  const now = Date.now();
  expect(bucket.reserve(now)).toBe(0);
  expect(other.reserve(now)).toBeCloseTo(1000, 0);
});

test("qps <= 0 is unlimited", () => {
  const bucket = TokenBucket.create(0, 0);
  expect(Array.from({ length: 100 }, () => bucket.reserve())).toEqual(Array<number>(100).fill(0));
});

test("tryTake takes only a whole free token, never one a reservation waits for", () => {
  const bucket = TokenBucket.create(10, 2);
  const now = Date.now();
  expect(bucket.tryTake(now)).toBe(true);
  expect(bucket.reserve(now)).toBe(0);
  expect(bucket.tryTake(now)).toBe(false);
  expect(bucket.reserve(now)).toBeCloseTo(100, 0);
  // 150 ms later the reservation above has used the token that came in; half of the next one is there.
  expect(bucket.tryTake(now + 150)).toBe(false);
  expect(bucket.tryTake(now + 200)).toBe(true);
  expect(TokenBucket.create(0, 0).tryTake()).toBe(true);
});

describe("wait", () => {
  test("spaces a thread's requests at qps after the burst, urgent ones first", async () => {
    const bucket = TokenBucket.create(100, 1);
    const order: string[] = [];
    const started = performance.now();
    const take = (name: string, urgent?: boolean): Promise<void> =>
      bucket.wait(undefined, urgent).then(() => void order.push(name));
    await Promise.all([take("a"), take("b"), take("c"), take("d", true), take("e")]);
    expect(order).toEqual(["a", "d", "b", "c", "e"]);
    // Four tokens after the burst's one, at 10 ms each (timers may fire a millisecond early or late).
    expect(performance.now() - started).toBeGreaterThanOrEqual(35);
  });

  test("a waiter that gives up leaves its token to the next one", async () => {
    const bucket = TokenBucket.create(20, 1);
    expect(bucket.tryTake()).toBe(true);
    const giveUp = new AbortController();
    const order: string[] = [];
    const quitter = bucket.wait(giveUp.signal).catch((e: unknown) => void order.push(`quit: ${String(e)}`));
    const next = bucket.wait().then(() => void order.push("next"));
    giveUp.abort(new Error("shutting down"));
    const started = performance.now();
    await Promise.all([quitter, next]);
    expect(order).toEqual(["quit: Error: shutting down", "next"]);
    expect(performance.now() - started).toBeLessThan(75);
  });

  test("an aborted signal rejects before taking anything", async () => {
    const bucket = TokenBucket.create(1, 1);
    const signal = AbortSignal.abort(new Error("gone"));
    expect(String(await bucket.wait(signal).catch((e: unknown) => e))).toBe("Error: gone");
    expect(bucket.tryTake()).toBe(true);
  });
});
