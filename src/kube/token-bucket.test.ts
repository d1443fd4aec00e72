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
