import { describe, expect, test } from "bun:test";
import type { LoadBalancerChange } from "../../../src/cloud/provider.ts";
import { InformerCache } from "../../../src/kube/informer-cache.ts";
import type { KubeObject } from "../../../src/kube/objects.ts";
import { createLogger } from "../../../src/log/logger.ts";
import { namespace, patchRecorder, providerInit, settingsFrom } from "./fixtures.test-support.ts";
import { createNamespaceLabels } from "./namespace-labels.ts";

const logger = createLogger({ verbosity: 0, format: "text", write: () => undefined });
const SELECTING = settingsFrom(
  `{ pools: [{ name: gold, namespaceSelectors: [{ matchLabels: { tier: gold } }], addresses: ["10.9.0.0/30"] }] }`,
).pools;

describe("namespace labels", () => {
  test("Namespaces not listed in time: the decision fails naming the permission; once listed, waiting Services are asked for", async () => {
    const cache = new InformerCache<KubeObject>("namespaces", logger);
    const changes: LoadBalancerChange[] = [];
    const init = providerInit({ kube: patchRecorder().kube, namespaces: () => cache });
    const labels = createNamespaceLabels(init, (change) => changes.push(change), 20);
    const failed = await labels.ready(SELECTING).then(
      () => "resolved",
      (error: unknown) => (error as Error).message,
    );
    expect(failed).toMatch(/Namespaces are not read yet \(may the manager list and watch namespaces\?\)/);
    cache.upsert(namespace("team-c", { tier: "gold" }));
    cache.markSynced();
    await labels.ready(SELECTING);
    await Bun.sleep(0);
    expect(changes).toEqual([{ waitingOnly: true }]);
    expect(labels.labels("team-c")).toEqual({ "kubernetes.io/metadata.name": "team-c", tier: "gold" });
    expect(labels.labels("unknown")).toEqual({ "kubernetes.io/metadata.name": "unknown" });
  });

  test("no Namespace cache offered: the name label alone, at once", async () => {
    const labels = createNamespaceLabels(providerInit({ kube: patchRecorder().kube }), () => undefined);
    await labels.ready(SELECTING);
    expect(labels.labels("team-c")).toEqual({ "kubernetes.io/metadata.name": "team-c" });
  });
});
