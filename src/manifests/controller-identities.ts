/**
 * The per-controller ServiceAccounts of `--use-service-account-credentials` (upstream client names
 * node-controller, service-controller, route-controller, created in the Lease namespace).
 *
 * Their permissions come from kube-apiserver's bootstrap ClusterRoles `system:controller:<name>`, which
 * every cluster has (the API server creates and reconciles them at each start). The API server also binds
 * each of them to the ServiceAccount of the same name in kube-system, so with the default Lease namespace
 * nothing needs shipping. In any other namespace those bootstrap bindings miss our ServiceAccounts, so the
 * shipped RBAC carries one ClusterRoleBinding per identity to the same bootstrap role: no new rules, only
 * the binding upstream would have made.
 */
import type { PolicyRule } from "../kube/objects.ts";
import { CONTROLLER_NAMES, CONTROLLERS, type ControllerIdentity, type ControllerName } from "../names/controllers.ts";

export interface IdentityRules {
  readonly name: ControllerIdentity;
  /** The controllers that write with this identity. */
  readonly controllers: readonly ControllerName[];
  /**
   * What our controllers do with it (reference: upstream "what the code actually calls"); all granted by
   * the bootstrap role. `check` asks the API server about exactly these.
   */
  readonly rules: readonly PolicyRule[];
}

function writingAs(identity: ControllerIdentity): ControllerName[] {
  return CONTROLLER_NAMES.filter((name) => CONTROLLERS[name].identity === identity);
}

const events: PolicyRule = { apiGroups: [""], resources: ["events"], verbs: ["create", "patch", "update"] };

export const CONTROLLER_IDENTITIES: readonly IdentityRules[] = [
  {
    name: "node-controller",
    controllers: writingAs("node-controller"),
    rules: [
      { apiGroups: [""], resources: ["nodes"], verbs: ["get", "update", "patch", "delete"] },
      { apiGroups: [""], resources: ["nodes/status"], verbs: ["patch"] },
      events,
    ],
  },
  {
    name: "service-controller",
    controllers: writingAs("service-controller"),
    rules: [{ apiGroups: [""], resources: ["services/status"], verbs: ["patch"] }, events],
  },
  {
    name: "route-controller",
    controllers: writingAs("route-controller"),
    rules: [{ apiGroups: [""], resources: ["nodes/status"], verbs: ["patch"] }, events],
  },
];

/** The namespace whose ServiceAccounts kube-apiserver binds to the bootstrap controller roles. */
export const BOOTSTRAP_NAMESPACE = "kube-system";

export const bootstrapRole = (identity: ControllerIdentity): string => `system:controller:${identity}`;

/** ClusterRoleBindings for the per-controller ServiceAccounts; none in kube-system (already bound there). */
export function controllerIdentityBindings(
  namespace: string,
  labels: Readonly<Record<string, string>>,
): Record<string, unknown>[] {
  if (namespace === BOOTSTRAP_NAMESPACE) return [];
  return CONTROLLER_IDENTITIES.map(({ name }) => ({
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRoleBinding",
    metadata: { name: `system:cloud-controller-manager:${namespace}:${name}`, labels: { ...labels } },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: bootstrapRole(name) },
    subjects: [{ kind: "ServiceAccount", name, namespace }],
  }));
}
