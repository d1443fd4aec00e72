/**
 * `manifests` / `install` arguments → validated `PackageOptions`: the packaging flags (binary, image, …)
 * plus the manager flags the generated file will run with, checked by the manager's own validation and
 * by the kind's rules. Every problem is returned, one line each naming the flag and value.
 */
import type { ProviderRegistry } from "../cloud/registry.ts";
import { loadConfig } from "../config/load.ts";
import { ownValue, type OwnFlag, type SplitArgs } from "./command-args.ts";
import { isKind, kindArgs, kindProblems, KINDS, type Kind } from "../manifests/catalog.ts";
import { DEFAULTS, normalizeArgs, type PackageOptions } from "../manifests/options.ts";

export const PACKAGE_FLAGS = {
  binary: {
    name: "binary",
    type: "string",
    default: DEFAULTS.binary,
    usage: "Path of the executable on the host, or inside --image.",
  },
  image: {
    name: "image",
    type: "string",
    default: "",
    usage: "An image holding the executable at --binary (pods). Empty: mount the host's --binary into --base-image.",
  },
  baseImage: {
    name: "base-image",
    type: "string",
    default: DEFAULTS.baseImage,
    usage: "A glibc image that runs the host's binary when --image is empty.",
  },
  envFile: {
    name: "env-file",
    type: "string",
    default: DEFAULTS.envFile,
    usage: "The environment file holding the unit's flags (systemd).",
  },
} as const satisfies Record<string, OwnFlag>;

export const PACKAGE_FLAG_LIST: readonly OwnFlag[] = Object.values(PACKAGE_FLAGS);

export type PackageResult = { ok: true; kind: Kind; options: PackageOptions } | { ok: false; errors: string[] };

/** Whether the kind's output depends on one provider: always, except `rbac` and `crds` without --cloud-provider. */
function namesProvider(kind: Kind, args: readonly string[]): boolean {
  return (kind !== "rbac" && kind !== "crds") || args.some((a) => /^--cloud-provider(=|$)/.test(a));
}

/**
 * `split` (made with at least `PACKAGE_FLAG_LIST`) holds the kind as its only positional. For `rbac` and
 * `crds` a missing --cloud-provider means every provider's, not an error (the other flags are still
 * validated).
 */
/** What the named provider (every provider, for a kind that names none) adds to the files. */
function providerParts(
  registry: ProviderRegistry,
  name: string | undefined,
): Pick<PackageOptions, "providerRules" | "customResources" | "withoutRoutes"> {
  return {
    providerRules: registry.rbacRules(name),
    customResources: registry.customResources(name),
    withoutRoutes: name !== undefined && !registry.offersRoutes(name),
  };
}

export function packageOptions(split: SplitArgs, registry: ProviderRegistry): PackageResult {
  const providers = registry.names;
  const errors = [...split.errors];
  const [kindText, ...extra] = split.positionals;
  if (kindText === undefined) return { ok: false, errors: [...errors, `a kind is required: ${KINDS.join(", ")}`] };
  if (!isKind(kindText))
    return { ok: false, errors: [...errors, `unknown kind ${JSON.stringify(kindText)} (kinds: ${KINDS.join(", ")})`] };
  if (extra.length > 0) errors.push(`unexpected arguments ${JSON.stringify(extra)}`);
  const args = kindArgs(kindText, split.manager);
  const needsProvider = namesProvider(kindText, args);
  const loaded = loadConfig(needsProvider ? args : [`--cloud-provider=${providers[0] ?? ""}`, ...args], providers);
  if (!loaded.ok) return { ok: false, errors: [...errors, ...loaded.errors] };
  const options: PackageOptions = {
    config: loaded.config,
    args: normalizeArgs(args),
    binary: ownValue(split, PACKAGE_FLAGS.binary),
    image: ownValue(split, PACKAGE_FLAGS.image),
    baseImage: ownValue(split, PACKAGE_FLAGS.baseImage),
    envFile: ownValue(split, PACKAGE_FLAGS.envFile),
    ...providerParts(registry, needsProvider ? loaded.config.cloudProvider : undefined),
  };
  errors.push(...kindProblems(kindText, options));
  return errors.length > 0 ? { ok: false, errors } : { ok: true, kind: kindText, options };
}
