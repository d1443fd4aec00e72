import { describe, expect, test } from "bun:test";
import type { KubeApi } from "../../../src/kube/api.ts";
import { createLogger } from "../../../src/log/logger.ts";
import { createClusterPools, readPools, type AddressPoolObject } from "./cluster-pools.ts";
import { poolStatus } from "./pool-status.ts";
import type { Pool } from "./pools.ts";

const logger = createLogger({ verbosity: 0, format: "text", write: () => undefined });

const object = (name: string, created: string, spec: Record<string, unknown>): AddressPoolObject => ({
  metadata: { name, creationTimestamp: created, generation: 1, resourceVersion: "1" },
  spec,
});

/** The objects as the running leader left them: statuses written from its reading with `inForce`. */
const written = (objects: readonly AddressPoolObject[], inForce?: ReadonlyMap<string, Pool>): AddressPoolObject[] =>
  readPools(objects, inForce).map((r) => ({ ...r.object, status: { ...poolStatus(r, [], "2026-01-01T00:00:00Z") } }));

/** An API server that lists `items` (in name order, as it does) and then watches quietly. */
const listing = (items: readonly AddressPoolObject[]): KubeApi =>
  ({
    list: async () => ({
      items: [...items].sort((a, b) => a.metadata.name.localeCompare(b.metadata.name)),
      metadata: { resourceVersion: "5" },
    }),
    watchLines: async function* (_resource: unknown, o: { signal: AbortSignal }) {
      await new Promise((resolve) => o.signal.addEventListener("abort", resolve));
    },
  }) as unknown as KubeApi;

const edited = (() => {
  const [alpha, beta] = written([
    object("alpha", "2026-01-01T00:00:00Z", { addresses: ["10.0.0.0/24"] }),
    object("beta", "2026-01-02T00:00:00Z", { addresses: ["10.0.1.0/24"] }),
  ]);
  const inForce = new Map(readPools([alpha!, beta!]).map((r) => [r.object.metadata.name, r.pool!]));
  const edit = { ...alpha!, metadata: { ...alpha!.metadata, generation: 2 }, spec: { addresses: ["10.0.0.0/23"] } };
  return written([edit, beta!], inForce);
})();
const sameSecond = [
  ...written([object("b-used", "2026-01-01T00:00:00Z", { addresses: ["10.0.0.8/30"] })]),
  object("a-new", "2026-01-01T00:00:00Z", { addresses: ["10.0.0.9"] }),
];

describe("cluster pools after a restart keep the pools the running leader kept", () => {
  test.each([
    ["an edit it refused (EditNotApplied) stays refused", edited, { alpha: ["10.0.0.0/24"], beta: ["10.0.1.0/24"] }],
    [
      "a new pool it refused, of the same second, stays refused",
      sameSecond,
      { "a-new": null, "b-used": ["10.0.0.8/30"] },
    ],
  ])("%s", async (_name, objects, expected) => {
    const changes: number[] = [];
    const pools = createClusterPools({ kube: listing(objects), logger, onChange: () => changes.push(1) });
    const stop = new AbortController();
    const running = pools.run(stop.signal);
    expect(pools.pools()).toEqual([]);
    expect(await pools.waitForSync(stop.signal)).toBe(true);
    const got = Object.fromEntries(
      pools.read().map((r) => [r.object.metadata.name, r.pool?.ranges.map((x) => x.text) ?? null]),
    );
    stop.abort();
    await running;
    expect(got).toEqual(expected);
    expect(changes).toEqual([]);
  });
});
