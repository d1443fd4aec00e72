/** Binds the work queue's metric hooks to the upstream `workqueue_*` series. */
import type { QueueMetrics } from "../kube/queue.ts";
import type { Metrics } from "./metrics.ts";
import { memo } from "../util/memo.ts";

export function queueMetrics(m: Metrics): QueueMetrics {
  // A queue's series are bound once per queue name: an add, a wait and a work count without hashing labels.
  const series = memo((name) => ({
    added: m.queueAdds.bind({ name }),
    retried: m.queueRetries.bind({ name }),
    waited: m.queueLatency.bind({ name }),
    worked: m.workDuration.bind({ name }),
  }));
  return {
    depth: (name, value) => m.queueDepth.set({ name }, value),
    added: (name) => series(name).added.inc(),
    retried: (name) => series(name).retried.inc(),
    waited: (name, seconds) => series(name).waited.observe(seconds),
    worked: (name, seconds) => series(name).worked.observe(seconds),
    watchInFlight(name, measure) {
      const report = (): void => {
        const [unfinished, longest] = measure();
        m.unfinishedWork.set({ name }, unfinished);
        m.longestRunning.set({ name }, longest);
      };
      m.inFlightReporters.add(report);
      return () => void m.inFlightReporters.delete(report);
    },
  };
}
