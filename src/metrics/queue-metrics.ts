/** Binds the work queue's metric hooks to the upstream `workqueue_*` series. */
import type { QueueMetrics } from "../kube/queue.ts";
import type { Metrics } from "./metrics.ts";

export function queueMetrics(m: Metrics): QueueMetrics {
  return {
    depth: (name, value) => m.queueDepth.set({ name }, value),
    added: (name) => m.queueAdds.inc({ name }),
    retried: (name) => m.queueRetries.inc({ name }),
    waited: (name, seconds) => m.queueLatency.observe({ name }, seconds),
    worked: (name, seconds) => m.workDuration.observe({ name }, seconds),
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
