import { describe, expect, test } from "bun:test";
import { histogramP99 } from "./lag.ts";

const METRIC = "cloud_controller_manager_event_loop_lag_seconds_bucket";

function scrape(counts: readonly [string, number][]): string {
  return counts.map(([le, n]) => `${METRIC}{le="${le}"} ${n}`).join("\n");
}

describe("event-loop lag p99 from a scraped histogram", () => {
  test("the first bucket bound holding 99 % of the samples", () => {
    const text = scrape([
      ["0.001", 900],
      ["0.005", 985],
      ["0.01", 995],
      ["0.05", 1000],
      ["+Inf", 1000],
    ]);
    expect(histogramP99(text, METRIC)).toBe(0.01);
  });

  test("no samples: no figure", () => {
    expect(
      histogramP99(
        scrape([
          ["0.001", 0],
          ["+Inf", 0],
        ]),
        METRIC,
      ),
    ).toBeUndefined();
    expect(histogramP99("", METRIC)).toBeUndefined();
  });

  test("other metrics' buckets are not read", () => {
    const text = `other_bucket{le="0.001"} 5\n${scrape([
      ["0.1", 10],
      ["+Inf", 10],
    ])}`;
    expect(histogramP99(text, METRIC)).toBe(0.1);
  });
});
