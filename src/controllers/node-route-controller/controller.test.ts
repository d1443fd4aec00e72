import { describe, expect, test } from "bun:test";
import { fastRetries } from "./controller.ts";

describe("fastRetries: the retries of a failing reconcile that come before the period's", () => {
  test.each([
    { baseMs: 1000, periodMs: 10_000, want: 4 }, // after 1, 2, 4 and 8 s; then once a period
    { baseMs: 1000, periodMs: 60_000, want: 6 },
    { baseMs: 1000, periodMs: 1000, want: 0 }, // a period of 1 s retries by itself
    { baseMs: 500, periodMs: 500, want: 0 },
  ])("base $baseMs ms, period $periodMs ms → $want", ({ baseMs, periodMs, want }) => {
    expect(fastRetries(baseMs, periodMs)).toBe(want);
  });
});
