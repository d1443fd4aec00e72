/**
 * The reads behind `cloud-controller-manager check`, all read-only: who the kubeconfig is, one
 * SelfSubjectAccessReview per permission the shipped RBAC grants and this configuration needs (and a
 * SubjectAccessReview per permission of each per-controller ServiceAccount), the Nodes, the Lease and
 * the provider's own preflight. Reviews are answers, not writes: nothing is stored.
 */
import type { Config } from "../config/config.ts";
import type { CloudProvider } from "../cloud/provider.ts";
import {
  LEASES,
  NODES,
  SELF_SUBJECT_ACCESS_REVIEWS,
  SUBJECT_ACCESS_REVIEWS,
  type KubeApi,
  type Resource,
} from "../kube/api.ts";
import type { Lease, Node } from "../kube/objects.ts";
import { isNotFound, KubeApiError } from "../kube/transport.ts";
import { expandRules, grantedAccess, neededFor, type Access } from "../manifests/access.ts";
import { rbacFor } from "../manifests/catalog.ts";
import type { ProviderRules } from "../cloud/registry.ts";
import { CONTROLLER_IDENTITIES, type IdentityRules } from "../manifests/controller-identities.ts";
import {
  clusterCidrFindings,
  leaseFindings,
  nodeFindings,
  providerFindings,
  rbacFindings,
  type AccessAnswer,
  type Finding,
} from "./findings.ts";

export interface PreflightDeps {
  readonly config: Config;
  /** The configured provider's own extra permissions. */
  readonly providerRules: readonly ProviderRules[];
  readonly api: KubeApi;
  readonly provider: CloudProvider;
  readonly now: () => number;
  readonly signal: AbortSignal;
}

const SELF_SUBJECT_REVIEWS: Resource = {
  group: "authentication.k8s.io",
  version: "v1",
  plural: "selfsubjectreviews",
  kind: "SelfSubjectReview",
  namespaced: false,
};

interface Review {
  status?: { allowed?: boolean; userInfo?: { username?: string; groups?: string[] } };
}

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));

function attributes(a: Access): Record<string, unknown> {
  if (a.path) return { nonResourceAttributes: { path: a.path, verb: a.verb } };
  return {
    resourceAttributes: {
      verb: a.verb,
      group: a.group,
      resource: a.resource,
      subresource: a.subresource,
      namespace: a.namespace,
      name: a.name,
    },
  };
}

/**
 * The kubeconfig's user name, for the report. Only an unreachable server or rejected credentials stop the
 * preflight; a server that cannot say (no SelfSubjectReview before 1.28, or not allowed) does not.
 */
async function whoAmI(deps: PreflightDeps): Promise<string> {
  try {
    const review = await deps.api.create<Review>(
      SELF_SUBJECT_REVIEWS,
      { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" } as Review,
      { signal: deps.signal },
    );
    return review.status?.userInfo?.username ?? UNNAMED;
  } catch (error) {
    if (error instanceof KubeApiError && error.status !== 401) return UNNAMED;
    throw error;
  }
}

const UNNAMED = "this kubeconfig's identity";

async function selfAllowed(deps: PreflightDeps, access: Access): Promise<boolean> {
  const body = { apiVersion: "authorization.k8s.io/v1", kind: "SelfSubjectAccessReview", spec: attributes(access) };
  const review = await deps.api.create<Review>(SELF_SUBJECT_ACCESS_REVIEWS, body as Review, { signal: deps.signal });
  return review.status?.allowed === true;
}

async function ownRbac(deps: PreflightDeps, user: string): Promise<Finding[]> {
  const needed = grantedAccess(rbacFor(deps.config, deps.providerRules)).flatMap((access) => {
    const why = neededFor(access, deps.config);
    return why === undefined ? [] : [{ access, neededFor: why }];
  });
  const answers: AccessAnswer[] = await Promise.all(
    needed.map(async (n) => ({ ...n, allowed: await selfAllowed(deps, n.access) })),
  );
  return rbacFindings(answers, user);
}

/** The per-controller ServiceAccounts' permissions, asked about as those accounts (SubjectAccessReview). */
async function identityRbac(deps: PreflightDeps, identity: IdentityRules): Promise<Finding[]> {
  const namespace = deps.config.leaderElection.resourceNamespace;
  const user = `system:serviceaccount:${namespace}:${identity.name}`;
  const groups = ["system:serviceaccounts", `system:serviceaccounts:${namespace}`, "system:authenticated"];
  const answers = await Promise.all(
    expandRules(identity.rules).map(async (access): Promise<AccessAnswer> => {
      const body = {
        apiVersion: "authorization.k8s.io/v1",
        kind: "SubjectAccessReview",
        spec: { user, groups, ...attributes(access) },
      };
      const review = await deps.api.create<Review>(SUBJECT_ACCESS_REVIEWS, body as Review, { signal: deps.signal });
      return { access, neededFor: identity.controllers.join(", "), allowed: review.status?.allowed === true };
    }),
  );
  return rbacFindings(answers, `ServiceAccount ${namespace}/${identity.name}`);
}

async function controllerIdentitiesRbac(deps: PreflightDeps): Promise<Finding[]> {
  if (!deps.config.useServiceAccountCredentials) return [];
  const used = CONTROLLER_IDENTITIES.filter((i) => i.controllers.some((c) => deps.config.controllers.includes(c)));
  const findings = await Promise.all(
    used.map((i) =>
      identityRbac(deps, i).catch((e: unknown): Finding[] => [
        { check: "rbac", status: "fail", detail: `cannot review ServiceAccount ${i.name}: ${message(e)}` },
      ]),
    ),
  );
  return findings.flat();
}

async function listNodes(deps: PreflightDeps): Promise<Node[]> {
  const nodes: Node[] = [];
  let next: string | undefined;
  do {
    const page = await deps.api.list<Node>(NODES, { limit: 500, continue: next, signal: deps.signal });
    nodes.push(...page.items);
    next = page.metadata.continue || undefined;
  } while (next);
  return nodes;
}

async function nodeChecks(deps: PreflightDeps): Promise<Finding[]> {
  try {
    const nodes = await listNodes(deps);
    return [...nodeFindings(nodes), ...clusterCidrFindings(nodes, deps.config, deps.provider.routes !== undefined)];
  } catch (error) {
    return [{ check: "nodes", status: "fail", detail: `cannot list nodes: ${message(error)}` }];
  }
}

async function leaseChecks(deps: PreflightDeps): Promise<Finding[]> {
  const { enabled, resourceName, resourceNamespace } = deps.config.leaderElection;
  if (!enabled) return leaseFindings(undefined, deps.config, deps.now());
  try {
    const lease = await deps.api
      .get<Lease>(LEASES, resourceName, { namespace: resourceNamespace, signal: deps.signal })
      .catch((e: unknown) => {
        if (isNotFound(e)) return undefined;
        throw e;
      });
    return leaseFindings(lease, deps.config, deps.now());
  } catch (error) {
    return [
      {
        check: "lease",
        status: "fail",
        detail: `cannot read Lease ${resourceNamespace}/${resourceName}: ${message(error)}`,
      },
    ];
  }
}

async function cloudChecks(deps: PreflightDeps): Promise<Finding[]> {
  const { provider } = deps;
  if (!provider.preflight) return providerFindings(provider.name, undefined);
  return providerFindings(provider.name, await provider.preflight(deps.signal));
}

export async function runPreflight(deps: PreflightDeps): Promise<Finding[]> {
  let user: string;
  try {
    user = await whoAmI(deps);
  } catch (error) {
    return [{ check: "api-server", status: "fail", detail: message(error) }, ...(await cloudChecks(deps))];
  }
  const connected: Finding = {
    check: "api-server",
    status: "ok",
    detail: `${deps.api.server} answers; the kubeconfig authenticates as ${user}`,
  };
  const rbac = await ownRbac(deps, user).catch((e: unknown): Finding[] => [
    { check: "rbac", status: "fail", detail: `cannot review permissions: ${message(e)}` },
  ]);
  const rest = await Promise.all([
    controllerIdentitiesRbac(deps),
    nodeChecks(deps),
    leaseChecks(deps),
    cloudChecks(deps),
  ]);
  return [connected, ...rbac, ...rest.flat()];
}
