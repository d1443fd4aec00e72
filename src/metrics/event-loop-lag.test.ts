import { describe, expect, test } from "bun:test";
import { Histogram, Registry } from "prom-client";
import { LAG_BUCKETS, monitorEventLoopLag, nextLagWait } from "./event-loop-lag.ts";

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

  test.each([
    { name: "on time after the busy interval", lag: 0.001, last: 250, next: 500 },
    { name: "on time, doubling again", lag: 0, last: 500, next: 1000 },
    { name: "on time at the idle cap", lag: 0.002, last: 2000, next: 2000 },
    { name: "doubling stops at the cap", lag: 0, last: 1500, next: 2000 },
    { name: "at the busy mark is still on time", lag: 0.005, last: 1000, next: 2000 },
    { name: "late after an idle wait", lag: 0.006, last: 2000, next: 250 },
    { name: "late after a busy wait", lag: 0.3, last: 250, next: 250 },
  ])("the next sample's wait: $name", ({ lag, last, next }) => {
    expect(nextLagWait(lag, last, { intervalMs: 250, idleIntervalMs: 2000, busySeconds: 0.005 })).toBe(next);
  });

  test("an idle loop is sampled less often, a busy one at the interval again", async () => {
    const h = histogram();
    const count = async (): Promise<number> =>
      (await h.get()).values.find((v) => v.metricName === "lag_seconds_count")?.value ?? 0;
    const lag = monitorEventLoopLag({ histogram: h, intervalMs: 10, idleIntervalMs: 160, busySeconds: 0.05 });
    try {
      // Idle: due at 10, 30, 70, 150, 310 ms: five samples in 400 ms, not 40.
      await Bun.sleep(400);
      const idle = await count();
      expect(idle).toBeGreaterThanOrEqual(3);
      expect(idle).toBeLessThanOrEqual(8);
      const until = performance.now() + 300;
      while (performance.now() < until) {
        // Busy: the sample due meanwhile comes late, and the next ones are 10 ms apart.
      }
      // Three samples within 140 ms (nominally by 30 ms: 0, 10, 30); still at the idle wait there would be one
      // before 160 ms. Polled, so a loaded machine's late timers get the slack.
      const deadline = performance.now() + 140;
      while ((await count()) - idle < 3 && performance.now() < deadline) await Bun.sleep(5);
      expect((await count()) - idle).toBeGreaterThanOrEqual(3);
    } finally {
      lag.stop();
    }
  });
});
