/**
 * The least-privilege RBAC for exactly the calls the manager makes (not the outdated docs role): the
 * test control plane binds its restricted identity with these objects, and `manifests rbac` prints them,
 * so shipped and tested RBAC are one. The per-controller ServiceAccounts rely on the bootstrap
 * `system:controller:*` roles (see controller-identities.ts).
 */
import type { ProviderRules } from "../cloud/registry.ts";
import type { Manifest, PolicyRule } from "../kube/objects.ts";
import { CLIENT_IDENTITIES } from "../names/controllers.ts";
import { controllerIdentityBindings } from "./controller-identities.ts";

export const CCM_USER = "system:cloud-controller-manager";
export const CCM_SERVICE_ACCOUNT = "cloud-controller-manager";
export const CCM_ROLE = "system:cloud-controller-manager";

export interface RbacOptions {
  /** Namespace of the leader-election Lease and the per-controller ServiceAccounts. */
  readonly namespace: string;
  /** Name of the leader-election Lease. */
  readonly leaseName: string;
  /** Providers' own extra permissions, each granted in a ClusterRole named after the provider. */
  readonly providerRules?: readonly ProviderRules[];
}

const LABELS = { "app.kubernetes.io/name": "cloud-controller-manager" };

/** Cluster-wide: Nodes, Services, Events, and the reviews behind delegated authn/authz. */
export function clusterRules(): PolicyRule[] {
  return [
    // Nodes are only ever patched (the cache holds trimmed copies, so a PUT would drop fields).
    { apiGroups: [""], resources: ["nodes"], verbs: ["get", "list", "watch", "patch", "delete"] },
    { apiGroups: [""], resources: ["nodes/status"], verbs: ["patch"] },
    { apiGroups: [""], resources: ["services"], verbs: ["get", "list", "watch"] },
    { apiGroups: [""], resources: ["services/status"], verbs: ["patch"] },
    // patch: a repeated event bumps the count of the existing one.
    { apiGroups: [""], resources: ["events"], verbs: ["create", "patch"] },
    { apiGroups: ["authentication.k8s.io"], resources: ["tokenreviews"], verbs: ["create"] },
    { apiGroups: ["authorization.k8s.io"], resources: ["subjectaccessreviews"], verbs: ["create"] },
  ];
}

/** In the Lease namespace only: the leader-election Lease and per-controller ServiceAccount tokens. */
export function namespaceRules(options: RbacOptions): PolicyRule[] {
  return [
    { apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["create"] },
    {
      apiGroups: ["coordination.k8s.io"],
      resources: ["leases"],
      resourceNames: [options.leaseName],
      verbs: ["get", "list", "watch", "update", "patch"],
    },
    // `--use-service-account-credentials`: tokens of the three controller identities only (a token of any
    // kube-system ServiceAccount would reach cluster-admin); creating one cannot be limited by name.
    { apiGroups: [""], resources: ["serviceaccounts"], verbs: ["create"] },
    { apiGroups: [""], resources: ["serviceaccounts"], resourceNames: [...CLIENT_IDENTITIES], verbs: ["get"] },
    {
      apiGroups: [""],
      resources: ["serviceaccounts/token"],
      resourceNames: [...CLIENT_IDENTITIES],
      verbs: ["create"],
    },
  ];
}

const subjects = (namespace: string): unknown[] => [
  { kind: "User", apiGroup: "rbac.authorization.k8s.io", name: CCM_USER },
  { kind: "ServiceAccount", name: CCM_SERVICE_ACCOUNT, namespace },
];

export function rbacManifests(options: RbacOptions): Manifest[] {
  const rbac = "rbac.authorization.k8s.io/v1";
  const roleRef = (kind: string): unknown => ({ apiGroup: "rbac.authorization.k8s.io", kind, name: CCM_ROLE });
  const named = { name: CCM_ROLE, labels: LABELS };
  const inNamespace = { ...named, namespace: options.namespace };
  return [
    {
      apiVersion: "v1",
      kind: "ServiceAccount",
      metadata: { name: CCM_SERVICE_ACCOUNT, namespace: options.namespace, labels: LABELS },
    },
    { apiVersion: rbac, kind: "ClusterRole", metadata: named, rules: clusterRules() },
    {
      apiVersion: rbac,
      kind: "ClusterRoleBinding",
      metadata: named,
      roleRef: roleRef("ClusterRole"),
      subjects: subjects(options.namespace),
    },
    { apiVersion: rbac, kind: "Role", metadata: inNamespace, rules: namespaceRules(options) },
    {
      apiVersion: rbac,
      kind: "RoleBinding",
      metadata: inNamespace,
      roleRef: roleRef("Role"),
      subjects: subjects(options.namespace),
    },
    authenticationReaderBinding(options.namespace),
    ...(controllerIdentityBindings(options.namespace, LABELS) as Manifest[]),
    ...(options.providerRules ?? []).flatMap((p) => providerRoles(p, options.namespace)),
  ];
}

/**
 * The secure port reads the client CA and request-header settings from the ConfigMap
 * `kube-system/extension-apiserver-authentication`, through the bootstrap Role that grants exactly that.
 */
function authenticationReaderBinding(namespace: string): Manifest {
  return {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "RoleBinding",
    metadata: { name: `${CCM_ROLE}:apiserver-authentication-reader`, namespace: "kube-system", labels: LABELS },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "extension-apiserver-authentication-reader" },
    subjects: subjects(namespace),
  };
}

function providerRoles(p: ProviderRules, namespace: string): Manifest[] {
  const rbac = "rbac.authorization.k8s.io/v1";
  const named = { name: `${CCM_ROLE}:${p.provider}`, labels: LABELS };
  const roleRef = (kind: string): unknown => ({ apiGroup: "rbac.authorization.k8s.io", kind, name: named.name });
  const cluster: Manifest[] = [
    { apiVersion: rbac, kind: "ClusterRole", metadata: named, rules: [...p.rules] },
    {
      apiVersion: rbac,
      kind: "ClusterRoleBinding",
      metadata: named,
      roleRef: roleRef("ClusterRole"),
      subjects: subjects(namespace),
    },
  ];
  if ((p.namespacedRules ?? []).length === 0) return cluster;
  const inNamespace = { ...named, namespace };
  return [
    ...cluster,
    { apiVersion: rbac, kind: "Role", metadata: inNamespace, rules: [...(p.namespacedRules ?? [])] },
    {
      apiVersion: rbac,
      kind: "RoleBinding",
      metadata: inNamespace,
      roleRef: roleRef("Role"),
      subjects: subjects(namespace),
    },
  ];
}
