import { describe, expect, test } from "bun:test";
import { createMetricsHub } from "./hub.ts";
import { createMetrics } from "./metrics.ts";

/** A controller sharded over two threads reports from both: the merged series must still read right. */
describe("metrics hub: threads merged", () => {
  test("counters and depths add up; running controllers and the longest processor do not", async () => {
    const main = createMetrics();
    const hub = createMetricsHub(main);
    for (const longest of [3, 7]) {
      const thread = createMetrics();
      thread.runningControllers.set({ name: "service", manager: "cloud-controller-manager" }, 1);
      thread.queueDepth.set({ name: "service" }, 2);
      thread.longestRunning.set({ name: "service" }, longest);
      const snapshot = await thread.registry.getMetricsAsJSON();
      hub.addSource(() => Promise.resolve(snapshot));
    }
    const { body } = await hub.render();
    expect(body).toContain('running_managed_controllers{name="service",manager="cloud-controller-manager"} 1');
    expect(body).toContain('workqueue_depth{name="service"} 4');
    expect(body).toContain('workqueue_longest_running_processor_seconds{name="service"} 7');
  });
});
