/** An unthrottled client for test setup and assertions, plus create-or-update of plain manifests. */
import { createKubeApi, type KubeApi, type Resource } from "../../src/kube/api.ts";
import { resolveConnection } from "../../src/kube/kubeconfig.ts";
import { TokenBucket } from "../../src/kube/token-bucket.ts";
import { createTransport, isNotFound, type Transport } from "../../src/kube/transport.ts";
import type { KubeObject } from "../../src/kube/objects.ts";

/**
 * `wrap`: what a test puts around the transport (to record the requests or the answers). `userAgent`:
 * also the field manager its writes are tracked under (the API server takes the agent's first word).
 */
export async function createAdminApi(
  kubeconfig: string,
  wrap: (transport: Transport) => Transport = (transport) => transport,
  userAgent = "ccm-test-harness",
): Promise<KubeApi> {
  const connection = await resolveConnection({ kubeconfig, master: "" });
  return createKubeApi(wrap(createTransport({ connection, limiter: TokenBucket.create(0, 0), userAgent })));
}

const KINDS: Readonly<Record<string, Resource>> = {
  ServiceAccount: { group: "", version: "v1", plural: "serviceaccounts", kind: "ServiceAccount", namespaced: true },
  ClusterRole: {
    group: "rbac.authorization.k8s.io",
    version: "v1",
    plural: "clusterroles",
    kind: "ClusterRole",
    namespaced: false,
  },
  ClusterRoleBinding: {
    group: "rbac.authorization.k8s.io",
    version: "v1",
    plural: "clusterrolebindings",
    kind: "ClusterRoleBinding",
    namespaced: false,
  },
  Role: { group: "rbac.authorization.k8s.io", version: "v1", plural: "roles", kind: "Role", namespaced: true },
  RoleBinding: {
    group: "rbac.authorization.k8s.io",
    version: "v1",
    plural: "rolebindings",
    kind: "RoleBinding",
    namespaced: true,
  },
  Namespace: { group: "", version: "v1", plural: "namespaces", kind: "Namespace", namespaced: false },
  Secret: { group: "", version: "v1", plural: "secrets", kind: "Secret", namespaced: true },
  Pod: { group: "", version: "v1", plural: "pods", kind: "Pod", namespaced: true },
  DaemonSet: { group: "apps", version: "v1", plural: "daemonsets", kind: "DaemonSet", namespaced: true },
  Deployment: { group: "apps", version: "v1", plural: "deployments", kind: "Deployment", namespaced: true },
  CustomResourceDefinition: {
    group: "apiextensions.k8s.io",
    version: "v1",
    plural: "customresourcedefinitions",
    kind: "CustomResourceDefinition",
    namespaced: false,
  },
};

export function resourceFor(kind: string): Resource {
  const res = KINDS[kind];
  if (!res) throw new Error(`no resource known for kind ${kind}`);
  return res;
}

/**
 * Create or update each object, as `kubectl apply` would for objects this harness owns. With `dryRun`
 * the API server validates and admits every object (a server-side dry run) and stores nothing.
 */
export async function applyObjects(
  api: KubeApi,
  objects: readonly KubeObject[],
  options: { dryRun?: boolean } = {},
): Promise<void> {
  for (const obj of objects) {
    const res = resourceFor(obj.kind ?? "");
    const target = { namespace: obj.metadata.namespace, dryRun: options.dryRun };
    let existing: KubeObject | undefined;
    try {
      existing = await api.get<KubeObject>(res, obj.metadata.name, target);
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
    if (existing)
      await api.update(
        res,
        { ...obj, metadata: { ...obj.metadata, resourceVersion: existing.metadata.resourceVersion } },
        target,
      );
    else await api.create(res, obj, target);
  }
}
