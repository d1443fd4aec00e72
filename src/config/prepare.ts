/**
 * Everything a manager run is configured with, read and validated once on the main thread: the flags,
 * then the provider's `--cloud-config` file (read here, parsed by the provider). Every problem is
 * collected, each naming its flag or file. The result is frozen plain data, so worker threads receive it
 * by structured clone instead of reading anything again.
 */
import { readFileSync } from "node:fs";
import type { ProviderConfig, ProviderRegistry } from "../cloud/registry.ts";
import type { Config } from "./config.ts";
import { loadConfig } from "./load.ts";

export type Prepared = { ok: true; config: Config; providerConfig: ProviderConfig } | { ok: false; errors: string[] };

export function prepare(argv: readonly string[], providers: ProviderRegistry): Prepared {
  const loaded = loadConfig(argv, providers.names);
  if (!loaded.ok) return loaded;
  const { config } = loaded;
  let text: string | undefined;
  if (config.cloudConfig !== "") {
    try {
      text = readFileSync(config.cloudConfig, "utf8");
    } catch (error) {
      const reason = `cannot read it: ${(error as Error).message}`;
      return {
        ok: false,
        errors: [`invalid value ${JSON.stringify(config.cloudConfig)} for flag --cloud-config: ${reason}`],
      };
    }
  }
  const parsed = providers.parse(config.cloudProvider, text, config.cloudConfig);
  return parsed.ok ? { ok: true, config, providerConfig: parsed.config } : parsed;
}
