/**
 * Providers register by name; `--cloud-provider` picks one and its factory validates `--cloud-config`.
 * The registry is a value built by the entry point from the providers compiled into the binary.
 */
import type { Manifest, ProviderRules } from "../manifests/rbac.ts";
import type { CloudProvider, ProviderContext, ProviderFactory } from "./provider.ts";

export interface ProviderRegistry {
  readonly names: readonly string[];
  /** Validates the cloud-config for `name` and returns a builder, or every problem found. */
  prepare(name: string, configText: string | undefined, configPath: string): PreparedProvider;
  /** Extra permissions of `name`, or of every provider that has some when `name` is undefined. */
  rbacRules(name?: string): ProviderRules[];
  /** CustomResourceDefinitions of `name`, or of every provider when `name` is undefined. */
  customResources(name?: string): Manifest[];
}

export type PreparedProvider =
  | { ok: true; create: (context: ProviderContext) => CloudProvider }
  | { ok: false; errors: string[] };

export function createRegistry(factories: readonly ProviderFactory<never>[]): ProviderRegistry {
  const byName = new Map<string, ProviderFactory<never>>();
  for (const factory of factories) {
    if (byName.has(factory.name)) throw new Error(`cloud provider ${JSON.stringify(factory.name)} was registered twice`);
    byName.set(factory.name, factory);
  }
  return {
    names: [...byName.keys()].sort(),
    prepare(name, configText, configPath): PreparedProvider {
      const factory = byName.get(name) as ProviderFactory | undefined;
      if (!factory) return { ok: false, errors: [`unknown cloud provider ${JSON.stringify(name)}`] };
      const parsed = factory.parseConfig(configText, configPath);
      if (!parsed.ok) return { ok: false, errors: parsed.errors.map((e) => `invalid --cloud-config ${JSON.stringify(configPath)}: ${e}`) };
      return { ok: true, create: (context) => factory.create(parsed.config, context) };
    },
    rbacRules(name) {
      return [...byName.values()]
        .filter((f) => (name === undefined || f.name === name) && (f.rbacRules?.length ?? 0) + (f.namespacedRbacRules?.length ?? 0) > 0)
        .map((f) => ({ provider: f.name, rules: [...(f.rbacRules ?? [])], namespacedRules: [...(f.namespacedRbacRules ?? [])] }));
    },
    customResources(name) {
      return [...byName.values()].filter((f) => name === undefined || f.name === name).flatMap((f) => [...(f.customResourceDefinitions ?? [])]);
    },
  };
}
