/** Figures shared by the benchmark's report tests. */
import type { Usage } from "./run.ts";

/** A run that used nothing: tests override the figures they read. */
export const NO_USAGE: Usage = {
  cpuSeconds: 0,
  peakRssMiB: 0,
  rss: [],
  requests: { total: 0, byVerb: {}, errors: {} },
  cloudCalls: {},
  cloudCallsTotal: 0,
};
