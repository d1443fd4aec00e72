/**
 * Providers register by name; `--cloud-provider` picks one. Configuring a provider is two steps, so the
 * main thread reads and validates `--cloud-config` once and worker threads receive the result:
 * `parse` turns the file's text into a frozen, structured-clone friendly `ProviderConfig` (or every
 * problem found), and `create` builds the provider from it (or from a clone of it, in a thread).
 * The registry is a value built by the entry point from the providers compiled into the binary.
 */
import type { Manifest, PolicyRule } from "../kube/objects.ts";
import { deepFreeze } from "../util/freeze.ts";
import type { CloudProvider, ProviderContext, ProviderFactory } from "./provider.ts";

/** A provider's validated configuration: plain data, deep-frozen, safe to post to a worker thread. */
export interface ProviderConfig {
  /** The registered name (`--cloud-provider`). */
  readonly provider: string;
  /** What the provider's `parseConfig` returned. */
  readonly settings: unknown;
}

export type ParsedProviderConfig = { ok: true; config: ProviderConfig } | { ok: false; errors: string[] };

/** A provider's extra permissions, granted in a ClusterRole of its own. */
export interface ProviderRules {
  readonly provider: string;
  readonly rules: readonly PolicyRule[];
  /** Granted in the manager's namespace only (a Role), e.g. reading credential Secrets. */
  readonly namespacedRules?: readonly PolicyRule[];
}

export interface ProviderRegistry {
  readonly names: readonly string[];
  /** Validates the cloud-config text of provider `name` (undefined: no `--cloud-config`). */
  parse(name: string, configText: string | undefined, configPath: string): ParsedProviderConfig;
  /** Builds the provider `config` was parsed for, loading its code. */
  create(config: ProviderConfig, context: ProviderContext): Promise<CloudProvider>;
  /** Extra permissions of `name`, or of every provider that has some when `name` is undefined. */
  rbacRules(name?: string): ProviderRules[];
  /**
   * CustomResourceDefinitions of `name`, or of every provider when `name` is undefined; a definition that
   * several providers share (AddressPool) appears once.
   */
  customResources(name?: string): Manifest[];
  /** Whether provider `name` may offer routes (false only when its factory says it never does). */
  offersRoutes(name: string): boolean;
  /** The names of the providers that never offer routes. */
  readonly withoutRoutes: readonly string[];
}

export function createRegistry(factories: readonly ProviderFactory<never>[]): ProviderRegistry {
  const byName = new Map<string, ProviderFactory<never>>();
  for (const factory of factories) {
    if (byName.has(factory.name))
      throw new Error(`cloud provider ${JSON.stringify(factory.name)} was registered twice`);
    byName.set(factory.name, factory);
  }
  const factory = (name: string): ProviderFactory | undefined => byName.get(name);
  return {
    names: [...byName.keys()].sort(),
    withoutRoutes: [...byName.values()]
      .filter((f) => f.withoutRoutes === true)
      .map((f) => f.name)
      .sort(),
    offersRoutes: (name) => factory(name)?.withoutRoutes !== true,
    parse(name, configText, configPath): ParsedProviderConfig {
      const found = factory(name);
      if (!found) return { ok: false, errors: [`unknown cloud provider ${JSON.stringify(name)}`] };
      const parsed = found.parseConfig(configText, configPath);
      if (!parsed.ok)
        return {
          ok: false,
          errors: parsed.errors.map((e) => `invalid --cloud-config ${JSON.stringify(configPath)}: ${e}`),
        };
      return { ok: true, config: deepFreeze({ provider: name, settings: parsed.config }) };
    },
    create(config, context) {
      const found = factory(config.provider);
      if (!found) return Promise.reject(new Error(`unknown cloud provider ${JSON.stringify(config.provider)}`));
      return found.create(config.settings, context);
    },
    rbacRules(name) {
      return [...byName.values()]
        .filter(
          (f) =>
            (name === undefined || f.name === name) &&
            (f.rbacRules?.length ?? 0) + (f.namespacedRbacRules?.length ?? 0) > 0,
        )
        .map((f) => ({
          provider: f.name,
          rules: [...(f.rbacRules ?? [])],
          namespacedRules: [...(f.namespacedRbacRules ?? [])],
        }));
    },
    customResources(name) {
      const crds = [...byName.values()]
        .filter((f) => name === undefined || f.name === name)
        .flatMap((f) => [...(f.customResourceDefinitions ?? [])]);
      return [...new Map(crds.map((crd) => [crd.metadata.name, crd])).values()];
    },
  };
}
