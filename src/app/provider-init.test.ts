import { describe, expect, test } from "bun:test";
import type { KubeApi } from "../kube/api.ts";
import type { SharedInformers } from "../kube/informers.ts";
import { createLogger } from "../log/logger.ts";
import { createHealthRegistry } from "../serving/health.ts";
import { realClock } from "../util/clock.ts";
import { buildProviderInit, type ProviderInitDeps } from "./provider-init.ts";

describe("buildProviderInit", () => {
  const deps = (only?: ReadonlySet<string>): ProviderInitDeps => ({
    root: {} as KubeApi,
    logger: createLogger({ verbosity: 0, format: "text", write: () => undefined }),
    clock: realClock,
    health: createHealthRegistry({}),
    events: { recorder: () => ({ event: () => undefined }) },
    only,
  });
  const informers = { nodes: () => undefined, services: () => undefined } as unknown as SharedInformers;
  const signal = AbortSignal.abort();

  test("the Namespace cache is offered where load balancers are ensured, not on a thread without the service controller", () => {
    expect(buildProviderInit(deps(), informers, signal).namespaces).toBeFunction();
    expect(buildProviderInit(deps(new Set(["service-lb-controller"])), informers, signal).namespaces).toBeFunction();
    expect(buildProviderInit(deps(new Set(["cloud-node-controller"])), informers, signal).namespaces).toBeUndefined();
  });
});
