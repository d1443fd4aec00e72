/**
 * `--cloud-provider=fake`: an in-memory cloud for demos, tests and benchmarks. Without `endpoint` the
 * cloud lives in this process and follows edits of the cloud-config file (a broken edit is logged and the
 * last good one stays); with `endpoint` it talks to a shared `cloud-controller-manager fake-cloud`.
 */

import type { ProviderFactory } from "../../src/cloud/provider.ts";
import { parseFakeConfig } from "./config.ts";
import type { FakeProviderConfig } from "./provider.ts";

export const fakeProviderFactory: ProviderFactory<FakeProviderConfig> = {
  name: "fake",
  parseConfig(text, path) {
    const parsed = parseFakeConfig(text);
    return parsed.ok ? { ok: true, config: { config: parsed.config, path, text } } : parsed;
  },
  create: async (input, context) => (await import("./provider.ts")).createFakeProvider(input, context),
};

export { FakeCloud } from "./engine.ts";
export { parseFakeConfig } from "./config.ts";
