/**
 * RBAC rules → the individual permissions they grant, one (verb, group, resource, subresource, namespace,
 * name) tuple each, in the shape of a SubjectAccessReview's `resourceAttributes`. `check` asks the API
 * server about every tuple the shipped RBAC holds, so whatever rules rbac.ts gains are checked too.
 */
import type { Config } from "../config/config.ts";
import type { ControllerName } from "../names/controllers.ts";
import type { PolicyRule } from "../kube/objects.ts";
import type { Manifest } from "../kube/objects.ts";

export interface Access {
  readonly verb: string;
  readonly group: string;
  readonly resource: string;
  readonly subresource?: string;
  /** Absent: cluster-wide (all namespaces, or a cluster-scoped resource). */
  readonly namespace?: string;
  readonly name?: string;
  /** Non-resource URL (then group and resource are empty). */
  readonly path?: string;
}

/** Every permission the rules grant; `namespace` for the rules of a namespaced Role. */
export function expandRules(rules: readonly PolicyRule[], namespace?: string): Access[] {
  return rules.flatMap((rule) => {
    if (rule.nonResourceURLs)
      return rule.nonResourceURLs.flatMap((path) =>
        rule.verbs.map((verb) => ({ verb, group: "", resource: "", path })),
      );
    const names: (string | undefined)[] = rule.resourceNames?.length ? rule.resourceNames : [undefined];
    return rule.apiGroups.flatMap((group) =>
      (rule.resources ?? []).flatMap((full) => {
        const [resource = "", subresource] = full.split("/");
        return names.flatMap((name) =>
          rule.verbs.map((verb) => compact({ verb, group, resource, subresource, namespace, name })),
        );
      }),
    );
  });
}

/** The permissions a set of manifests grants through its ClusterRoles and Roles (bindings are assumed). */
export function grantedAccess(manifests: readonly Manifest[]): Access[] {
  return manifests.flatMap((m) => {
    const rules = m.rules as PolicyRule[] | undefined;
    if (!rules) return [];
    return expandRules(rules, m.kind === "Role" ? m.metadata.namespace : undefined);
  });
}

/**
 * Why the manager needs a permission with this configuration, or undefined when it does not. Resources
 * not listed here are needed by every configuration (nodes and events: every controller and the manager).
 */
export function neededFor(access: Access, config: Config): string | undefined {
  const key = `${access.group}/${access.resource}`;
  const need = NEEDS[key];
  if (!need) return "the manager";
  return need.when(config) ? need.reason : undefined;
}

interface Need {
  readonly reason: string;
  when(config: Config): boolean;
}

const enabled = (config: Config, name: ControllerName): boolean => config.controllers.includes(name);

const NEEDS: Readonly<Record<string, Need>> = {
  "coordination.k8s.io/leases": { reason: "leader election", when: (c) => c.leaderElection.enabled },
  "/serviceaccounts": { reason: "--use-service-account-credentials", when: (c) => c.useServiceAccountCredentials },
  "authentication.k8s.io/tokenreviews": {
    reason: "delegated authentication on the secure port",
    when: (c) => c.serving.securePort !== 0,
  },
  "authorization.k8s.io/subjectaccessreviews": {
    reason: "delegated authorization on the secure port",
    when: (c) => c.serving.securePort !== 0,
  },
  "/services": { reason: "service-lb-controller", when: (c) => enabled(c, "service-lb-controller") },
  // Only pool-backed providers' roles grant it, and only their load balancers read it.
  "/namespaces": {
    reason: "address pools' namespaceSelectors (service-lb-controller)",
    when: (c) => enabled(c, "service-lb-controller"),
  },
};

export function describeAccess(a: Access): string {
  if (a.path) return `${a.verb} ${a.path}`;
  const resource = `${a.resource}${a.subresource ? `/${a.subresource}` : ""}${a.group ? `.${a.group}` : ""}`;
  const where = a.namespace ? ` in namespace ${a.namespace}` : "";
  return `${a.verb} ${resource}${a.name ? ` ${JSON.stringify(a.name)}` : ""}${where}`;
}

function compact(a: {
  verb: string;
  group: string;
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
}): Access {
  return Object.fromEntries(Object.entries(a).filter(([, v]) => v !== undefined)) as unknown as Access;
}
