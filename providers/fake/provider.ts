/**
 * The fake provider built from its validated configuration: an in-process cloud that follows edits of
 * its cloud-config file, or a client of a shared `fake-cloud` server (`endpoint`).
 */ import { followCloudConfig } from "../../src/cloud/follow-file.ts";
import type { CloudProvider, ProviderContext } from "../../src/cloud/provider.ts";
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
  /** The text `config` was parsed from, so following the file starts from it. */
  readonly text?: string;
}

const FOLLOW_INTERVAL_MS = 1000;

function followFile(input: FakeProviderConfig, engine: FakeCloud, context: ProviderContext): () => void {
  let applied = input.text;
  const onText = (text: string): void => {
    if (text === applied) return;
    applied = text;
    const parsed = parseFakeConfig(text);
    if (!parsed.ok) {
      for (const line of parsed.errors) context.logger.warn(`ignoring edit of ${input.path}: ${line}`);
      return;
    }
    engine.reload(parsed.config);
    context.logger.info(`reloaded fake cloud from ${input.path}: ${parsed.config.instances.length} instance(s)`);
  };
  const onError = (error: Error): void =>
    context.logger.warn(`cannot re-read ${input.path}, keeping the last good fake cloud: ${error.message}`);
  return followCloudConfig(input.path, FOLLOW_INTERVAL_MS, onText, onError);
}

export function createFakeProvider(
  input: FakeProviderConfig,
  context: ProviderContext,
  engine?: FakeCloud,
): CloudProvider {
  const { config } = input;
  let stopFollowing = (): void => undefined;
  let api: FakeCloudApi;
  if (config.endpoint !== "") api = httpApi(config.endpoint, context);
  else {
    const local = engine ?? new FakeCloud(config);
    if (input.path !== "") stopFollowing = followFile(input, local, context);
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
