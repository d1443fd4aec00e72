/**
 * The process-wide default metrics (`process_*`, `nodejs_*`), on the main thread's registry only: the
 * one place besides hub.ts that loads prom-client's index (see prom.ts).
 */
import { collectDefaultMetrics } from "prom-client";
import type { Registry } from "./prom.ts";

/**
 * prom-client samples its nodejs_eventloop_lag_* every 10 ms by default: in Bun that is a timer waking the
 * event loop 100 times a second, about 6 ms of CPU per second (two thirds of an idle manager's CPU).
 * Once a second is enough for those series; cloud_controller_manager_event_loop_lag_seconds is ours.
 */
const LAG_PRECISION_MS = 1000;

/**
 * V8's heap spaces, which JavaScriptCore does not have: Bun answers `v8.getHeapSpaceStatistics()` by
 * walking the whole heap, about 90 ms of the main thread per scrape with 20,000 Nodes cached (a CPU
 * profile on 16 cores: 4.4 % of the manager's CPU in a burst scraped every 2 s, and the event loop held
 * that long). `nodejs_heap_size_*_bytes` and `process_resident_memory_bytes` stay.
 */
export const DROPPED_SERIES = [
  "nodejs_heap_space_size_total_bytes",
  "nodejs_heap_space_size_used_bytes",
  "nodejs_heap_space_size_available_bytes",
] as const;

export function collectProcessMetrics(registry: Registry): void {
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: LAG_PRECISION_MS });
  for (const name of DROPPED_SERIES) registry.removeSingleMetric(name);
}
