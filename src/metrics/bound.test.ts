import { describe, expect, test } from "bun:test";
import { AggregatorRegistry, Counter, Histogram, Registry } from "prom-client";
import { LabelledCounter, LabelledHistogram } from "./bound.ts";

const BUCKETS = [0.005, 0.1, 1];
const OBSERVATIONS: readonly [string, number][] = [
  ["GET", 0.001],
  ["GET", 0.05],
  ["PATCH", 0.7],
  ["GET", 3],
  ["PATCH", 0.005],
];

/** The same observations through prom-client's own metrics and through the bound ones. */
async function rendered(): Promise<{ theirs: string; ours: string }> {
  const theirs = new Registry();
  const ours = new Registry();
  const h = new Histogram({
    name: "latency_seconds",
    help: "h",
    labelNames: ["verb", "host"],
    buckets: BUCKETS,
    registers: [theirs],
  });
  const c = new Counter({
    name: "requests_total",
    help: "c",
    labelNames: ["code", "method", "host"],
    registers: [theirs],
  });
  const bh = new LabelledHistogram({
    name: "latency_seconds",
    help: "h",
    labelNames: ["verb", "host"],
    buckets: BUCKETS,
    registers: [ours],
  });
  const bc = new LabelledCounter({
    name: "requests_total",
    help: "c",
    labelNames: ["code", "method", "host"],
    registers: [ours],
  });
  for (const [verb, seconds] of OBSERVATIONS) {
    h.observe({ verb, host: "api:6443" }, seconds);
    c.inc({ code: "200", method: verb, host: "api:6443" });
    bh.bind({ verb, host: "api:6443" }).observe(seconds);
    bc.bind({ code: "200", method: verb, host: "api:6443" }).inc();
  }
  return { theirs: await theirs.metrics(), ours: await ours.metrics() };
}

describe("bound metrics", () => {
  test("render exactly as prom-client's counters and histograms with the same observations", async () => {
    const { theirs, ours } = await rendered();
    expect(ours).toBe(theirs);
    expect(ours).toContain('latency_seconds_bucket{le="0.1",verb="GET",host="api:6443"} 2');
  });

  test("one series per label values, however often bound; threads' registries sum", async () => {
    const registries = [new Registry(), new Registry()];
    for (const registry of registries) {
      const counter = new LabelledCounter({
        name: "requests_total",
        help: "c",
        labelNames: ["code"],
        registers: [registry],
      });
      counter.bind({ code: "200" }).inc();
      counter.bind({ code: "200" }).inc(2);
    }
    const merged = AggregatorRegistry.aggregate(await Promise.all(registries.map((r) => r.getMetricsAsJSON())));
    expect(await merged.metrics()).toContain('requests_total{code="200"} 6');
  });

  test("snapshots are plain data a thread can post (structured clone)", async () => {
    const registry = new Registry();
    new LabelledHistogram({
      name: "h_seconds",
      help: "h",
      labelNames: ["verb"],
      buckets: BUCKETS,
      registers: [registry],
    })
      .bind({ verb: "GET" })
      .observe(0.2);
    const snapshot = await registry.getMetricsAsJSON();
    expect(structuredClone(snapshot)).toEqual(snapshot);
  });
});
