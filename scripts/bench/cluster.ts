/**
 * One fresh control plane per measured run (so neither manager inherits the other's etcd history or watch
 * cache): the API requests of the managers' user audited, in-flight limits raised for both alike, and an
 * extra role for the Go reference, which writes Nodes with full PUTs (update) where our manager patches.
 * Both managers run as the same user, `system:cloud-controller-manager`, with the same bindings.
 */
import { join } from "node:path";
import { startControlPlane, type ControlPlane } from "../control-plane/control-plane.ts";
import { applyObjects } from "../control-plane/admin.ts";
import { CCM_USER } from "../../src/manifests/rbac.ts";
import type { KubeObject } from "../../src/kube/objects.ts";
import { auditRules } from "./audit.ts";

export const APISERVER_ARGS = ["--max-requests-inflight=1000", "--max-mutating-requests-inflight=500"];
const EXTRA_ROLE = "bench:reference-ccm-updates";

/** What upstream's controllers need beyond our RBAC (which grants patch, not update). */
export const REFERENCE_EXTRA_RULES = [
  { apiGroups: [""], resources: ["nodes", "nodes/status"], verbs: ["update"] },
  { apiGroups: [""], resources: ["services/status"], verbs: ["update"] },
  { apiGroups: [""], resources: ["events"], verbs: ["update"] },
];

export async function startBenchControlPlane(
  root: string,
  name: string,
  log: (line: string) => void,
): Promise<ControlPlane> {
  const cp = await startControlPlane({
    dir: join(root, name),
    log,
    apiserverArgs: APISERVER_ARGS,
    auditRules: auditRules(),
  });
  try {
    await applyObjects(cp.admin, referenceRbac());
    return cp;
  } catch (error) {
    await cp.stop();
    throw error;
  }
}

function referenceRbac(): KubeObject[] {
  return [
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name: EXTRA_ROLE },
      rules: REFERENCE_EXTRA_RULES,
    } as KubeObject,
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name: EXTRA_ROLE },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: EXTRA_ROLE },
      subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: CCM_USER }],
    } as KubeObject,
  ];
}
