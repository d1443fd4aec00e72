import { describe, expect, test } from "bun:test";
import { microTime, rfc3339 } from "./clock.ts";

describe("time formats", () => {
  test.each([
    [Date.UTC(2026, 10, 24, 23, 59, 59, 999), "2026-11-24T23:59:59Z"],
    [Date.UTC(2026, 10, 25, 0, 0, 0, 0), "2026-11-25T00:00:00Z"],
    [Date.UTC(2026, 10, 25, 0, 0, 0, 500), "2026-11-25T00:00:00Z"],
    [Date.UTC(2026, 10, 24, 23, 59, 59, 1), "2026-11-24T23:59:59Z"],
  ])("rfc3339(%p) is %p, whatever was formatted before", (ms, stamp) => {
    expect(rfc3339(ms)).toBe(stamp);
  });

  test("microTime has six fractional digits", () => {
    expect(microTime(Date.UTC(2026, 0, 2, 3, 4, 5, 678))).toBe("2026-01-02T03:04:05.678000Z");
  });
});
