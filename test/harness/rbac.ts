/**
 * The shipped RBAC grants the leader-election Lease by name. Tests that use their own lease names get the
 * same namespace Role generated for that name (under a distinct object name), nothing broader.
 */
import { CCM_ROLE, rbacManifests } from "../../src/manifests/rbac.ts";
import { applyObjects } from "../../scripts/control-plane/admin.ts";
import { controlPlane } from "./control-plane.ts";

export async function grantLease(leaseName: string): Promise<void> {
  const cp = await controlPlane();
  const rename = (name: string): string => `${name}:${leaseName}`;
  const scoped = rbacManifests({ namespace: "kube-system", leaseName })
    .filter((m) => m.kind === "Role" || (m.kind === "RoleBinding" && (m.roleRef as { name: string }).name === CCM_ROLE))
    .map((m) => {
      const roleRef = m.roleRef as { name: string } | undefined;
      return {
        ...m,
        metadata: { ...m.metadata, name: rename(m.metadata.name) },
        ...(roleRef ? { roleRef: { ...roleRef, name: rename(roleRef.name) } } : {}),
      };
    });
  await applyObjects(cp.admin, scoped);
}
