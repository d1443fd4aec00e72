/**
 * Every kind of file `manifests <kind>` prints, rendered from one `PackageOptions`. Pure: the commands
 * and the release script only print or write what comes out.
 */
import type { Config } from "../config/config.ts";
import { posix } from "node:path";
import { daemonSet, deployment, LABELS, secretMountPath, staticPod } from "./pods.ts";
import type { ProviderRules } from "../cloud/registry.ts";
import type { Manifest } from "../kube/objects.ts";
import { rbacManifests } from "./rbac.ts";
import { environmentFile, systemdProblems, systemdUnit, sysusersEntry } from "./systemd.ts";
import { DEFAULTS, hostFiles, type PackageOptions } from "./options.ts";
import { pathAllowed } from "../serving/auth.ts";
import { validateClusterCidrs } from "../controllers/node-route-controller/predicates.ts";

export const KINDS = [
  "systemd",
  "systemd-env",
  "sysusers",
  "static-pod",
  "daemonset",
  "deployment",
  "rbac",
  "crds",
] as const;

export type Kind = (typeof KINDS)[number];

export const isKind = (value: string): value is Kind => (KINDS as readonly string[]).includes(value);

/** Kinds that run on the host with a kubeconfig file (no in-cluster credentials). */
const HOST_KINDS: readonly Kind[] = ["systemd", "systemd-env", "static-pod"];
const POD_KINDS: readonly Kind[] = ["static-pod", "daemonset", "deployment"];
const IN_CLUSTER_KINDS: readonly Kind[] = ["daemonset", "deployment"];
/** Kinds whose file names the manager's files as paths (hostPath volumes, ReadOnlyPaths=, the flags). */
const PATH_KINDS: readonly Kind[] = [...HOST_KINDS, ...IN_CLUSTER_KINDS];

/** Where each file goes on a host, for headers, `install` and the release tarball. */
export const FILE_NAMES: Readonly<Record<Kind, string>> = {
  systemd: "cloud-controller-manager.service",
  "systemd-env": "cloud-controller-manager.env",
  sysusers: "cloud-controller-manager.sysusers.conf",
  "static-pod": "static-pod.yaml",
  daemonset: "daemonset.yaml",
  deployment: "deployment.yaml",
  rbac: "rbac.yaml",
  crds: "crds.yaml",
};

/**
 * The manager flags a kind runs with: host kinds get the conventional kubeconfig path unless the user
 * named one (or `--master`), since they have no in-cluster credentials.
 */
export function kindArgs(kind: Kind, argv: readonly string[]): string[] {
  const named = argv.some((a) => /^--?(kubeconfig|master)(=|$)/.test(a));
  return HOST_KINDS.includes(kind) && !named ? [`--kubeconfig=${DEFAULTS.kubeconfig}`, ...argv] : [...argv];
}

function podProblems(kind: Kind, o: PackageOptions): string[] {
  const { serving } = o.config;
  const problems: string[] = [];
  if (serving.securePort === 0)
    problems.push(`invalid value "0" for flag --secure-port: ${kind} probes /healthz on the secure port`);
  // The server's own matcher: `/healthz*` lets the probe in as well as `/healthz`.
  if (!pathAllowed("/healthz", serving.alwaysAllowPaths)) {
    problems.push(
      `invalid value ${JSON.stringify(serving.alwaysAllowPaths.join(","))} for flag --authorization-always-allow-paths: ${kind} probes /healthz without credentials`,
    );
  }
  return problems;
}

/**
 * A relative path would be read from the manager's working folder, which a hostPath volume or a
 * ReadOnlyPaths= line cannot name (systemd ignores relative ones): an install file names absolute paths.
 */
function relativePathProblems(kind: Kind, o: PackageOptions): string[] {
  const certDir = o.config.serving.certDir;
  const files = [...hostFiles(o.config), ...(certDir !== "" ? [{ flag: "cert-dir", path: certDir }] : [])];
  return files
    .filter((f) => !f.path.startsWith("/"))
    .map((f) => `invalid value ${JSON.stringify(f.path)} for flag --${f.flag}: ${kind} needs an absolute path`);
}

/**
 * Routes on (upstream's default) without a usable `--cluster-cidr` make the manager exit at start, in
 * these words, when the provider offers routes. Whether it does is known only once it is built (the
 * fake's depend on its cloud-config), so the file is refused unless the provider's factory says it never
 * offers any (baremetal, vsphere): their route controller does not start, as upstream's.
 */
function routeProblems(o: PackageOptions): string[] {
  const { controllers, configureCloudRoutes, clusterCidrs } = o.config;
  if (o.withoutRoutes === true) return [];
  if (!controllers.includes("node-route-controller") || !configureCloudRoutes) return [];
  const problem = validateClusterCidrs(clusterCidrs);
  return problem === undefined ? [] : [problem];
}

function inClusterProblems(kind: Kind, o: PackageOptions): string[] {
  const { kubeconfig, master, serving } = o.config;
  const problems: string[] = [];
  if (kubeconfig !== "" || master !== "") {
    const flag = kubeconfig !== "" ? "kubeconfig" : "master";
    problems.push(
      `invalid value ${JSON.stringify(kubeconfig || master)} for flag --${flag}: ${kind} uses its ServiceAccount`,
    );
  }
  const mountProblem = secretMountProblem(o.config.cloudConfig, o.binary);
  if (mountProblem)
    problems.push(
      `invalid value ${JSON.stringify(o.config.cloudConfig)} for flag --cloud-config: ${kind} mounts its Secret over the file's folder, ${mountProblem}`,
    );
  // The pod runs as a non-root user, which Kubernetes gives no ambient capabilities: NET_BIND_SERVICE
  // in its security context would not let it bind a low port.
  if (serving.securePort > 0 && serving.securePort < 1024)
    problems.push(
      `invalid value "${serving.securePort}" for flag --secure-port: ${kind} runs as a non-root user, which cannot listen below 1024`,
    );
  return problems;
}

/**
 * The cloud-config Secret is mounted over the file's folder (pods.ts), which must not be `/` or hold the
 * executable's folder (the mount would hide it).
 */
function secretMountProblem(cloudConfig: string, binary: string): string | undefined {
  // A relative path is relativePathProblems' to report.
  if (!cloudConfig.startsWith("/")) return undefined;
  const folder = secretMountPath(cloudConfig);
  if (folder === "/" || `${posix.dirname(binary)}/`.startsWith(`${folder}/`))
    return "which cannot be / or hold the executable";
  return undefined;
}

/**
 * Kinds that run one manager per control-plane node: without leader election every one of them acts,
 * which is right on one control-plane node only (upstream allows it too), so the file says so.
 */
function replicaWarning(kind: Kind, o: PackageOptions): string {
  if (o.config.leaderElection.enabled || (kind !== "daemonset" && kind !== "static-pod")) return "";
  return `# --leader-elect=false: every control-plane node running this ${kind} runs an active manager; use it on one only.\n`;
}

/** Problems specific to a kind, one line each naming the flag. */
export function kindProblems(kind: Kind, o: PackageOptions): string[] {
  return [
    ...(PATH_KINDS.includes(kind) ? [...relativePathProblems(kind, o), ...routeProblems(o)] : []),
    ...(POD_KINDS.includes(kind) ? podProblems(kind, o) : []),
    ...(IN_CLUSTER_KINDS.includes(kind) ? inClusterProblems(kind, o) : []),
    ...(kind === "systemd" || kind === "systemd-env" ? systemdProblems(o) : []),
  ];
}

export function rbacFor(config: Config, providerRules: readonly ProviderRules[] = []): Manifest[] {
  return rbacManifests({
    namespace: config.leaderElection.resourceNamespace,
    leaseName: config.leaderElection.resourceName,
    providerRules,
  });
}

/**
 * The Lease namespace, first, when it is not kube-system (which every cluster has): the RBAC and the
 * workloads live there, and `kubectl apply` refuses objects in a namespace nothing made. Not in the
 * chart's objects (helm's release namespace is made by `--create-namespace`).
 */
export function namespaceObjects(config: Config): Manifest[] {
  const name = config.leaderElection.resourceNamespace;
  if (name === "kube-system") return [];
  return [{ apiVersion: "v1", kind: "Namespace", metadata: { name, labels: { ...LABELS } } }];
}

/** Kubernetes objects as a multi-document YAML stream. */
export function toYaml(objects: readonly object[]): string {
  return objects.map((o) => Bun.YAML.stringify(o, null, 2).trimEnd()).join("\n---\n") + "\n";
}

export function render(kind: Kind, o: PackageOptions): string {
  switch (kind) {
    case "systemd":
      return systemdUnit(o);
    case "systemd-env":
      return environmentFile(o);
    case "sysusers":
      return sysusersEntry();
    case "static-pod":
      return replicaWarning(kind, o) + toYaml([staticPod(o)]);
    case "daemonset":
      return replicaWarning(kind, o) + toYaml([...namespaceObjects(o.config), ...daemonSet(o)]);
    case "deployment":
      return toYaml([...namespaceObjects(o.config), ...deployment(o)]);
    case "rbac":
      return toYaml([...namespaceObjects(o.config), ...rbacFor(o.config, o.providerRules)]);
    case "crds":
      return o.customResources.length > 0 ? toYaml(o.customResources) : "# this provider defines no custom resources\n";
  }
}
