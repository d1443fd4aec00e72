/**
 * The main thread's event-loop lag of our manager during a run: the manager serves `/metrics` without
 * authorisation on a local port, a scraper reads it every 2 s, and the p99 of
 * `cloud_controller_manager_event_loop_lag_seconds` over the run is read from the last scrape (the
 * histogram is cumulative since the start). The scrapes cost the manager a little CPU, so compare CPU
 * figures only between runs that both scraped or both did not.
 */
import { freePort } from "../control-plane/ports.ts";

const LAG_METRIC = "cloud_controller_manager_event_loop_lag_seconds_bucket";

/** The p99 of a scraped cumulative histogram: the first bucket bound holding 99 % of the samples. */
export function histogramP99(text: string, metric: string): number | undefined {
  const buckets = [...text.matchAll(new RegExp(`^${metric}\\{le="([^"]+)"\\} (\\d+)`, "gm"))].map(
    (m) => [Number(m[1]), Number(m[2])] as const,
  );
  const total = buckets.at(-1)?.[1] ?? 0;
  if (total === 0) return undefined;
  return buckets.find(([, count]) => count >= total * 0.99)?.[0];
}

/** Scrapes `/metrics` every 2 s until stopped; resolves the last answer. */
function scrape(port: number): { stop(): Promise<string> } {
  let last = "";
  let running = true;
  const loop = (async (): Promise<void> => {
    while (running) {
      await Bun.sleep(2000);
      const answer = await fetch(`https://127.0.0.1:${port}/metrics`, {
        tls: { rejectUnauthorized: false },
      } as RequestInit).catch(() => undefined);
      if (answer?.ok) last = await answer.text();
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return last;
    },
  };
}

/** Manager flags serving /metrics without authorisation on a local port. */
function lagServing(port: number): string[] {
  return [
    `--secure-port=${port}`,
    "--bind-address=127.0.0.1",
    "--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics",
  ];
}

/**
 * Runs `run` with the serving flags it must pass to our manager, scraping the lag meanwhile; resolves
 * its result and the lag's p99 in seconds (undefined when no scrape answered).
 */
export async function withLagScrape<R>(
  run: (servingArgs: readonly string[]) => Promise<R>,
): Promise<{ result: R; lagP99Seconds?: number }> {
  const port = await freePort();
  const scraper = scrape(port);
  try {
    const result = await run(lagServing(port));
    return { result, lagP99Seconds: histogramP99(await scraper.stop(), LAG_METRIC) };
  } finally {
    await scraper.stop();
  }
}
