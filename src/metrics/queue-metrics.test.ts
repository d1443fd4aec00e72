import { expect, test } from "bun:test";
import { WorkQueue } from "../kube/queue.ts";
import { bucketLimiter } from "../kube/rate-limiters.ts";
import { createMetrics } from "./metrics.ts";
import { queueMetrics } from "./queue-metrics.ts";

test("in-flight gauges are measured when scraped (no timer), and a shut-down queue is no longer measured", async () => {
  const metrics = createMetrics();
  let now = 1_000_000;
  const clock = { now: () => now, sleep: () => Promise.resolve() };
  const queue = new WorkQueue({
    name: "nodes",
    rateLimiter: bucketLimiter(10, 100),
    clock,
    metrics: queueMetrics(metrics),
  });
  queue.add("a");
  queue.add("b");
  expect(await queue.get()).toBe("a");
  now += 2000;
  expect(await queue.get()).toBe("b");
  now += 3000;
  const scrape = (): Promise<string> => metrics.registry.metrics();
  expect(await scrape()).toContain('workqueue_unfinished_work_seconds{name="nodes"} 8');
  expect(await scrape()).toContain('workqueue_longest_running_processor_seconds{name="nodes"} 5');
  queue.done("a");
  now += 1000;
  expect(await scrape()).toContain('workqueue_unfinished_work_seconds{name="nodes"} 4');
  queue.shutDown();
  now += 1000;
  expect(await scrape()).toContain('workqueue_unfinished_work_seconds{name="nodes"} 4');
});
