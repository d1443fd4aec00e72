/** Progress over time as [seconds, count] points, thinned for the results file and the plot. */
export type Timeline = readonly (readonly [number, number])[];

/** Milliseconds → seconds, at most `points` points, always keeping the first and the last. */
export function downsample(timeline: readonly (readonly [number, number])[], points: number): Timeline {
  const step = Math.max(1, Math.ceil(timeline.length / points));
  const kept = timeline.filter((_, i) => i % step === 0 || i === timeline.length - 1);
  return kept.map(([ms, count]) => [Math.round(ms) / 1000, count] as const);
}
