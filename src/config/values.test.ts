import { describe, expect, test } from "bun:test";
import { formatDuration, parseBool, parseByteQuantity, parseDuration, parseInteger } from "./values.ts";

describe("parseDuration follows Go's time.ParseDuration", () => {
  const cases: [string, number | undefined][] = [
    ["0", 0],
    ["10s", 10_000],
    ["5m0s", 300_000],
    ["1h2m3.5s", 3_723_500],
    ["300ms", 300],
    ["1.5h", 5_400_000],
    ["250us", 0.25],
    ["-2s", -2000],
    ["", undefined],
    ["10", undefined],
    ["5 s", undefined],
    ["1d", undefined],
    ["s", undefined],
  ];
  for (const [text, want] of cases) test(JSON.stringify(text), () => expect(parseDuration(text)).toBe(want as number));
  test("formats like Go", () => {
    expect([0, 300, 10_000, 300_000, 3_723_500, -2000, -90_000].map(formatDuration)).toEqual([
      "0s",
      "300ms",
      "10s",
      "5m0s",
      "1h2m3.5s",
      "-2s",
      "-1m30s",
    ]);
  });
});

describe("parseInteger reads Go's integer literals, as pflag's strconv.ParseInt(s, 0, …)", () => {
  test.each([
    ["10258", 10258],
    ["+5", 5],
    ["-1", -1],
    ["0", 0],
    ["0x2812", 10258],
    ["0X1f", 31],
    ["010", 8],
    ["0o17", 15],
    ["0b101", 5],
    ["1_000", 1000],
    ["-0x10", -16],
    ["08", undefined],
    ["1__0", undefined],
    ["_1", undefined],
    ["1_", undefined],
    ["0x", undefined],
    ["1.5", undefined],
    ["1e3", undefined],
    ["", undefined],
    ["ten", undefined],
  ] as const)("%p", (text, want) => {
    expect(parseInteger(text)).toBe(want as number);
  });
});

describe("parseBool follows strconv.ParseBool", () => {
  test.each([
    ["true", true],
    ["1", true],
    ["T", true],
    ["False", false],
    ["0", false],
    ["yes", undefined],
    ["", undefined],
  ] as const)("%p", (text, want) => {
    expect(parseBool(text)).toBe(want as boolean);
  });
});

describe("parseByteQuantity reads upstream's byte quantities", () => {
  test.each([
    ["0", 0],
    ["512", 512],
    ["1K", 1000],
    ["1k", 1000],
    ["2Ki", 2048],
    ["3M", 3_000_000],
    ["5Mi", 5 * 2 ** 20],
    ["1.5Ki", 1536],
    ["1.5", undefined],
    ["-1", undefined],
    ["1KB", undefined],
    ["", undefined],
  ] as const)("%p", (text, want) => {
    expect(parseByteQuantity(text)).toBe(want as number);
  });
});
