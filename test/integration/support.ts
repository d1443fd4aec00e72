/** Shared steps of the controller integration tests: a namespace, a CCM running one controller, events. */
import { EVENTS, LEASES, NAMESPACES, NODES, SERVICES, type KubeApi } from "../../src/kube/api.ts";
import type { KubeObject, Lease, Node } from "../../src/kube/objects.ts";
import { isNotFound } from "../../src/kube/transport.ts";
import type { ControlPlane } from "../../scripts/control-plane/control-plane.ts";
import { startCcm, type CcmProcess, managerFlags } from "../harness/ccm.ts";
import type { TestFakeCloud } from "../harness/fake-cloud.ts";
import { loadBalancerService } from "../harness/fixtures.ts";
import { eventually } from "../harness/wait.ts";

/** Per test and hook: the first one also starts the control plane, and CCM (re)starts take seconds each. */
export const INTEGRATION_TIMEOUT_MS = 180_000;

export async function createNamespace(admin: KubeApi, name: string): Promise<void> {
  await admin.create(NAMESPACES, { apiVersion: "v1", kind: "Namespace", metadata: { name } });
}

/**
 * The manager as the restricted identity, against the fake cloud served by the test, with one
 * controller; resolves once its caches are synced.
 */
export async function startController(
  cp: ControlPlane,
  cloud: TestFakeCloud,
  controller: string,
  extra: readonly string[] = [],
): Promise<CcmProcess> {
  const ccm = startCcm({
    args: [...managerFlags(cp.kubeconfigs.ccm, "fake", cloud.configFile), `--controllers=${controller}`, ...extra],
  });
  await ccm.waitForLine(new RegExp(`started 1 controller\\(s\\): ${controller}`));
  await ccm.waitForLine(/caches synced/);
  return ccm;
}

export interface EventSummary {
  readonly type: string;
  readonly reason: string;
  readonly message: string;
  readonly component: string;
}

interface EventObject extends KubeObject {
  involvedObject: { kind: string; name: string };
  type: string;
  reason: string;
  message: string;
  source?: { component?: string };
}

export async function eventsFor(
  admin: KubeApi,
  namespace: string,
  kind: string,
  name: string,
): Promise<EventSummary[]> {
  const list = await admin.list<EventObject>(EVENTS, { namespace, fieldSelector: `involvedObject.name=${name}` });
  return list.items
    .filter((e) => e.involvedObject.kind === kind)
    .map((e) => ({ type: e.type, reason: e.reason, message: e.message, component: e.source?.component ?? "" }));
}

export async function deleteNodes(admin: KubeApi, names: readonly string[]): Promise<void> {
  for (const name of names) {
    await admin.delete(NODES, name).catch((error: unknown) => {
      if (!isNotFound(error)) throw error;
    });
  }
}

export async function createNode(admin: KubeApi, node: Node): Promise<Node> {
  return admin.create(NODES, node);
}

/** A LoadBalancer Service `name` created in `namespace`; resolves once its ensure is under way. */
export async function ensureUnderWay(admin: KubeApi, namespace: string, name: string): Promise<void> {
  await admin.create(SERVICES, loadBalancerService(name, namespace));
  await eventually(`the ensure of ${namespace}/${name} under way`, async () =>
    (await eventsFor(admin, namespace, "Service", name)).some((e) => e.reason === "EnsuringLoadBalancer"),
  );
}

/** Another replica's renewal of Lease `kube-system/<lease>`, written by the admin: the leader has lost it. */
async function takeLease(admin: KubeApi, lease: string, holderIdentity: string): Promise<void> {
  const held = await admin.get<Lease>(LEASES, lease, { namespace: "kube-system" });
  const renewTime = new Date().toISOString().replace("Z", "000Z");
  await admin.update<Lease>(LEASES, { ...held, spec: { ...held.spec, holderIdentity, renewTime } });
}

/**
 * Another replica takes Lease `kube-system/<lease>` from `ccm`, its leader: the exit status `ccm` ends
 * with (or "still running" after `waitMs`), and how long after the take it came.
 */
export async function exitOnLeaseTaken(
  admin: KubeApi,
  ccm: CcmProcess,
  lease: string,
  waitMs: number,
): Promise<{ code: number | "still running"; afterMs: number }> {
  await takeLease(admin, lease, "another-replica");
  const takenAt = Date.now();
  const code = await Promise.race([ccm.exited, Bun.sleep(waitMs).then(() => "still running" as const)]);
  return { code, afterMs: Date.now() - takenAt };
}
