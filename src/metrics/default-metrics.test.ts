import { describe, expect, test } from "bun:test";
import { DROPPED_SERIES, collectProcessMetrics } from "./default-metrics.ts";
import { createMetrics } from "./metrics.ts";
import { Counter, Gauge, Histogram, Registry } from "./prom.ts";

describe("process-wide default metrics", () => {
  test("the main thread's registry carries process_* series; a thread's does not", async () => {
    const main = await createMetrics({ defaultMetrics: collectProcessMetrics }).registry.metrics();
    const thread = await createMetrics().registry.metrics();
    for (const name of ["process_cpu_seconds_total", "process_resident_memory_bytes", "process_start_time_seconds"])
      expect([main.includes(`\n${name} `), thread.includes(`\n${name} `)]).toEqual([true, false]);
  });

  test("no V8 heap-space series: in Bun each scrape of them walks the whole heap", async () => {
    const main = await createMetrics({ defaultMetrics: collectProcessMetrics }).registry.metrics();
    for (const name of DROPPED_SERIES) expect(main).not.toContain(name);
    expect(main).toContain("\nnodejs_heap_size_used_bytes ");
  });

  test("the one-file classes are the package's own classes, not copies", async () => {
    const index = await import("prom-client");
    expect([Registry, Counter, Gauge, Histogram]).toEqual([
      index.Registry,
      index.Counter,
      index.Gauge,
      index.Histogram,
    ]);
    expect(Registry).toBe(index.Registry);
    expect(Histogram).toBe(index.Histogram);
  });
});
