/** The registered factory for `--cloud-provider=baremetal`, and what tests use. */
import type { ProviderFactory } from "../../src/cloud/provider.ts";
import { parseBaremetalConfig } from "./config.ts";
import { createBaremetalProvider, type BaremetalProviderInput } from "./provider.ts";

export const baremetalProviderFactory: ProviderFactory<BaremetalProviderInput> = {
  name: "baremetal",
  parseConfig(text, path) {
    const parsed = parseBaremetalConfig(text);
    return parsed.ok ? { ok: true, config: { config: parsed.config, path, text } } : parsed;
  },
  create: (input, context) => createBaremetalProvider(input, context),
};

export { createBaremetalProvider, type BaremetalProvider } from "./provider.ts";
export { parseBaremetalConfig, type BaremetalConfig } from "./config.ts";
