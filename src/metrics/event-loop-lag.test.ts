import { describe, expect, test } from "bun:test";
import { Histogram, Registry } from "prom-client";
import { LAG_BUCKETS, monitorEventLoopLag } from "./event-loop-lag.ts";

const histogram = (): Histogram =>
  new Histogram({ name: "lag_seconds", help: "lag", buckets: LAG_BUCKETS, registers: [new Registry()] });

describe("event-loop lag", () => {
  test.each([
    { name: "no samples yet", samples: [], healthy: true },
    { name: "all under the limit", samples: [0.001, 0.002, 0.5], healthy: true },
    { name: "p99 over the limit", samples: [0.001, 1.5], healthy: false },
    { name: "one stall in a hundred", samples: Array.from({ length: 200 }, () => 0.001).concat([3]), healthy: true },
    {
      name: "stalls older than the window",
      samples: Array.from({ length: 20 }, () => 2).concat(Array.from({ length: 200 }, () => 0.001)),
      healthy: true,
    },
  ])("p99 of the last 100 samples against 1 s: $name", ({ samples, healthy }) => {
    const lag = monitorEventLoopLag({ histogram: histogram(), intervalMs: 0, windowSize: 100, limitSeconds: 1 });
    for (const s of samples) lag.record(s);
    expect(lag.check() === undefined).toBe(healthy);
  });

  test("a blocked loop shows as lag in the histogram and the check", async () => {
    const h = histogram();
    const lag = monitorEventLoopLag({ histogram: h, intervalMs: 10, windowSize: 5, limitSeconds: 0.1 });
    try {
      await Bun.sleep(30);
      const until = performance.now() + 300;
      while (performance.now() < until) {
        // Busy: the monitor's timer cannot fire.
      }
      await Bun.sleep(30);
      expect(lag.p99()).toBeGreaterThanOrEqual(0.2);
      expect(lag.check()).toContain("exceeds 0.1 s");
      const { values } = await h.get();
      expect(values.find((v) => v.metricName === "lag_seconds_count")?.value).toBeGreaterThan(2);
    } finally {
      lag.stop();
    }
  });
});
