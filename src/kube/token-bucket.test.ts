import { expect, test } from "bun:test";
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
