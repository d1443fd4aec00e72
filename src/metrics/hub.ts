/**
 * `/metrics` for a manager whose controllers may run in worker threads: the main registry plus every
 * thread's registry, merged (prom-client's aggregation; each series lives in one thread, so sums are exact).
 */
import { AggregatorRegistry, type MetricObjectWithValues, type MetricValue } from "prom-client";
import type { Metrics } from "./metrics.ts";

export type MetricsSnapshot = MetricObjectWithValues<MetricValue<string>>[];

export interface MetricsHub {
  /** Adds a source of metrics (a worker thread); returns a function that removes it. */
  addSource(source: () => Promise<MetricsSnapshot>): () => void;
  render(): Promise<{ contentType: string; body: string }>;
}

export function createMetricsHub(main: Metrics): MetricsHub {
  const sources = new Set<() => Promise<MetricsSnapshot>>();
  return {
    addSource(source) {
      sources.add(source);
      return () => sources.delete(source);
    },
    async render() {
      if (sources.size === 0) return { contentType: main.registry.contentType, body: await main.registry.metrics() };
      const snapshots = await Promise.all([
        main.registry.getMetricsAsJSON(),
        ...[...sources].map((s) => s().catch(() => [])),
      ]);
      const merged = AggregatorRegistry.aggregate(snapshots);
      return { contentType: main.registry.contentType, body: await merged.metrics() };
    },
  };
}
