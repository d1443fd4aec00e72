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

export function collectProcessMetrics(registry: Registry): void {
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: LAG_PRECISION_MS });
}
