/**
 * `--cloud-provider=fake`: an in-memory cloud for demos, tests and benchmarks. Without `endpoint` the
 * cloud lives in this process and follows edits of the cloud-config file (a broken edit is logged and the
 * last good one stays); with `endpoint` it talks to a shared `cloud-controller-manager fake-cloud`.
 */
import { unwatchFile, watchFile, readFileSync } from "node:fs";
import type { CloudProvider, ProviderContext, ProviderFactory } from "../../src/cloud/provider.ts";
import { httpApi, inProcessApi, type FakeCloudApi } from "./api.ts";
import { parseFakeConfig, type FakeConfig } from "./config.ts";
import { FakeCloud } from "./engine.ts";
import { fakeInstances } from "./instances.ts";
import { fakeLoadBalancer } from "./load-balancer.ts";
import { fakeRoutes } from "./routes.ts";
import { fakePreflight } from "./preflight.ts";

export interface FakeProviderConfig {
  readonly config: FakeConfig;
  readonly path: string;
}

function followFile(path: string, engine: FakeCloud, context: ProviderContext): () => void {
  const onChange = (): void => {
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch (error) {
      context.logger.warn(`cannot re-read ${path}, keeping the last good fake cloud: ${(error as Error).message}`);
      return;
    }
    const parsed = parseFakeConfig(text);
    if (!parsed.ok) {
      for (const line of parsed.errors) context.logger.warn(`ignoring edit of ${path}: ${line}`);
      return;
    }
    engine.reload(parsed.config);
    context.logger.info(`reloaded fake cloud from ${path}: ${parsed.config.instances.length} instance(s)`);
  };
  watchFile(path, { interval: 1000 }, onChange);
  return () => unwatchFile(path, onChange);
}

export function createFakeProvider(input: FakeProviderConfig, context: ProviderContext, engine?: FakeCloud): CloudProvider {
  const { config } = input;
  let stopFollowing = (): void => undefined;
  let api: FakeCloudApi;
  if (config.endpoint !== "") api = httpApi(config.endpoint, context);
  else {
    const local = engine ?? new FakeCloud(config);
    if (input.path !== "") stopFollowing = followFile(input.path, local, context);
    api = inProcessApi(local, context);
  }
  const crashAfter = config.faults.crashAfterMs;
  return {
    name: "fake",
    initialize: (init) => {
      if (crashAfter !== undefined) {
        const timer = setTimeout(() => {
          throw new Error("fake cloud: injected crash (faults.crashAfter)");
        }, crashAfter);
        init.signal.addEventListener("abort", () => clearTimeout(timer), { once: true });
      }
      return Promise.resolve();
    },
    instances: fakeInstances(api, { enabled: config.batching, maxBatchSize: config.maxBatchSize }),
    loadBalancer: fakeLoadBalancer(api),
    routes: config.routes ? fakeRoutes(api) : undefined,
    preflight: (signal) => fakePreflight(api, config, signal),
    close: () => {
      stopFollowing();
      return Promise.resolve();
    },
  };
}

export const fakeProviderFactory: ProviderFactory<FakeProviderConfig> = {
  name: "fake",
  parseConfig(text, path) {
    const parsed = parseFakeConfig(text);
    return parsed.ok ? { ok: true, config: { config: parsed.config, path } } : parsed;
  },
  create: (input, context) => createFakeProvider(input, context),
};

export { FakeCloud } from "./engine.ts";
export { parseFakeConfig } from "./config.ts";
