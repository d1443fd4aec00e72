/**
 * What the chart takes from the `manifests` catalog: the in-cluster workload and the RBAC rendered with
 * sentinel values, which the templates turn into template expressions. Nothing here is written by hand,
 * so a change to the catalog shows up in the chart the next time `npm run chart` runs.
 */
import { createRegistry } from "../../src/cloud/registry.ts";
import { providerFactories } from "../../src/builtins.ts";
import { splitArgs } from "../../src/cli/command-args.ts";
import { packageOptions, PACKAGE_FLAG_LIST } from "../../src/cli/package-options.ts";
import { controllerIdentityBindings } from "../../src/manifests/controller-identities.ts";
import { DEFAULTS, type PackageOptions } from "../../src/manifests/options.ts";
import { daemonSet, deployment, LABELS } from "../../src/manifests/pods.ts";
import { rbacManifests } from "../../src/manifests/rbac.ts";
import type { Manifest } from "../../src/kube/objects.ts";

/** Stand-ins the templates replace with `{{ … }}` expressions. */
export const SENTINEL = {
  namespace: "__NAMESPACE__",
  lease: "__LEASE_NAME__",
  binary: "__BINARY__",
  labels: "__LABELS__",
} as const;

export type Obj = Record<string, unknown>;

export const registry = createRegistry(providerFactories());

/** `manifests <kind>` options for in-cluster kinds, as the chart's defaults are. */
export function catalogOptions(kind: "daemonset" | "deployment", extra: readonly string[] = []): PackageOptions {
  const argv = [kind, "--cloud-provider=fake", `--cloud-config=${DEFAULTS.cloudConfig}`, "--cluster-cidr=10.0.0.0/8"];
  const result = packageOptions(splitArgs([...argv, ...extra], PACKAGE_FLAG_LIST), registry);
  if (!result.ok) throw new Error(`catalog options: ${result.errors.join("; ")}`);
  return result.options;
}

function workload(objects: readonly Manifest[]): Obj {
  const found = objects.find((o) => o.kind === "DaemonSet" || o.kind === "Deployment");
  if (!found) throw new Error("the catalog rendered no workload");
  return found;
}

export interface WorkloadParts {
  /** The DaemonSet's spec, host-binary mode with a cloud-config. */
  readonly daemonSetSpec: Obj;
  /** Keys a Deployment's spec adds (replicas, strategy). */
  readonly deploymentOnly: Obj;
  readonly podSpec: Obj;
  readonly container: Obj;
  /** The volume and mount of the host's binary, at `SENTINEL.binary`. */
  readonly binary: { readonly volume: Obj; readonly mount: Obj };
  readonly cloudConfig: { readonly volume: Obj; readonly mount: Obj };
}

const named = (list: unknown, name: string): Obj => {
  const found = (list as Obj[]).find((v) => v.name === name);
  if (!found) throw new Error(`the catalog's pod has no volume ${name}`);
  return found;
};

export function workloadParts(): WorkloadParts {
  const o = catalogOptions("daemonset", [`--binary=${SENTINEL.binary}`]);
  const spec = workload(daemonSet(o)).spec as Obj;
  const deploymentSpec = workload(deployment(o)).spec as Obj;
  const podSpec = (spec.template as Obj).spec as Obj;
  const container = (podSpec.containers as Obj[])[0]!;
  const deploymentOnly = Object.fromEntries(Object.entries(deploymentSpec).filter(([key]) => !(key in spec)));
  const part = (name: string): { volume: Obj; mount: Obj } => ({
    volume: named(podSpec.volumes, name),
    mount: named(container.volumeMounts, name),
  });
  return {
    daemonSetSpec: spec,
    deploymentOnly,
    podSpec,
    container,
    binary: part("binary"),
    cloudConfig: part("cloud-config"),
  };
}

export interface RbacParts {
  /** ServiceAccount, roles and bindings every install needs. */
  readonly base: readonly Manifest[];
  /** The per-controller identities' bindings, needed outside kube-system only. */
  readonly identities: readonly Manifest[];
  /** Each provider's own ClusterRole (and Role) with bindings. */
  readonly providers: ReadonlyMap<string, readonly Manifest[]>;
}

export function rbacParts(): RbacParts {
  const options = { namespace: SENTINEL.namespace, leaseName: SENTINEL.lease };
  const identityNames = new Set(
    controllerIdentityBindings(SENTINEL.namespace, LABELS).map((b) => (b.metadata as Obj).name as string),
  );
  const all = rbacManifests(options);
  const base = all.filter((m) => !identityNames.has(m.metadata.name));
  const identities = all.filter((m) => identityNames.has(m.metadata.name));
  const providers = new Map(
    registry
      .rbacRules()
      .map((rules) => [rules.provider, rbacManifests({ ...options, providerRules: [rules] }).slice(all.length)]),
  );
  return { base, identities, providers };
}

export const customResources = (): Manifest[] => registry.customResources();
