import { expect, test } from "bun:test";
import { forEachChunk } from "./chunks.ts";

test("forEachChunk runs every item once, at most workers × chunkSize at a time, chunk by chunk", async () => {
  const cases = [
    { items: 10, chunkSize: 3, workers: 1, most: 3 },
    { items: 10, chunkSize: 3, workers: 2, most: 6 },
    { items: 10, chunkSize: 1, workers: 4, most: 4 },
    { items: 0, chunkSize: 5, workers: 2, most: 0 },
  ];
  for (const c of cases) {
    let inFlight = 0;
    let most = 0;
    const done: number[] = [];
    await forEachChunk(
      Array.from({ length: c.items }, (_, i) => i),
      c,
      async (i) => {
        inFlight += 1;
        most = Math.max(most, inFlight);
        await Bun.sleep(2);
        inFlight -= 1;
        done.push(i);
      },
    );
    expect(done.sort((a, b) => a - b)).toEqual(Array.from({ length: c.items }, (_, i) => i));
    expect(most).toBe(c.most);
  }
});

test("forEachChunk takes no new chunk once the signal aborts", async () => {
  const stop = new AbortController();
  const done: number[] = [];
  await forEachChunk([1, 2, 3, 4, 5, 6], { chunkSize: 2, workers: 1, signal: stop.signal }, (i) => {
    done.push(i);
    stop.abort();
    return Promise.resolve();
  });
  expect(done).toEqual([1, 2]);
});
