/**
 * Helpers for the node controllers' integration tests: the CCM's flags for running just those two
 * controllers as the restricted identity against a test fake cloud, and admin-side Node and Event
 * reads and writes (setting Ready is the admin's job here: no kube-controller-manager runs).
 */
import { EVENTS, NODES } from "../../src/kube/api.ts";
import type { KubeObject, Node, NodeAddress } from "../../src/kube/objects.ts";
import { isNotFound, KubeUnreachableError } from "../../src/kube/transport.ts";
import { TAINT_UNINITIALIZED } from "../../src/kube/well-known.ts";
import type { ControlPlane } from "../../scripts/control-plane/control-plane.ts";
import type { TestFakeCloud } from "../harness/fake-cloud.ts";
import { readyCondition } from "../harness/fixtures.ts";
import { managerFlags } from "../harness/ccm.ts";

/** The node controllers' flags, as the restricted identity, for any provider and cloud-config. */
export function nodeControllerFlags(cp: ControlPlane, provider: string, configFile: string): string[] {
  return [
    ...managerFlags(cp.kubeconfigs.ccm, provider, configFile),
    "--configure-cloud-routes=false",
    "--controllers=cloud-node-controller,cloud-node-lifecycle-controller",
    "--node-monitor-period=1s",
  ];
}

export function nodeControllerArgs(cp: ControlPlane, cloud: TestFakeCloud, extra: readonly string[] = []): string[] {
  return [...nodeControllerFlags(cp, "fake", cloud.configFile), ...extra];
}

export interface KubeEvent extends KubeObject {
  readonly reason: string;
  readonly message: string;
  readonly type: string;
  readonly count: number;
  readonly source: { readonly component: string };
  readonly involvedObject: { readonly name: string; readonly uid?: string };
}

/** Creates the Node as kubelet registers it: status (addresses, conditions) comes with the create. */
export async function registerNode(cp: ControlPlane, node: Node): Promise<Node> {
  return cp.admin.create(NODES, node);
}

export async function getNode(cp: ControlPlane, name: string): Promise<Node | undefined> {
  try {
    return await cp.admin.get<Node>(NODES, name);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

export async function setReady(cp: ControlPlane, name: string, ready: boolean): Promise<void> {
  await cp.admin.patch(
    NODES,
    name,
    { status: { conditions: [readyCondition(ready)] } },
    { subresource: "status", type: "strategic" },
  );
}

/** Deletes in groups of 50; one retry per Node covers a pooled connection the API server restart broke. */
export async function deleteNodes(cp: ControlPlane, names: readonly string[]): Promise<void> {
  const remove = async (name: string, retry = true): Promise<void> => {
    try {
      await cp.admin.delete(NODES, name);
    } catch (error) {
      if (error instanceof KubeUnreachableError && retry) await remove(name, false);
      else if (!isNotFound(error)) throw error;
    }
  };
  for (let i = 0; i < names.length; i += 50) await Promise.all(names.slice(i, i + 50).map((name) => remove(name)));
}

export async function nodeEvents(cp: ControlPlane, name: string): Promise<KubeEvent[]> {
  const list = await cp.admin.list<KubeEvent>(EVENTS, {
    namespace: "default",
    fieldSelector: `involvedObject.kind=Node,involvedObject.name=${name}`,
  });
  return list.items;
}

/** Every Event about Nodes whose name starts with `prefix`, by node name. */
export async function eventsByNode(cp: ControlPlane, prefix: string): Promise<Map<string, KubeEvent[]>> {
  const list = await cp.admin.list<KubeEvent>(EVENTS, {
    namespace: "default",
    fieldSelector: "involvedObject.kind=Node",
  });
  const byNode = new Map<string, KubeEvent[]>();
  for (const e of list.items.filter((e) => e.involvedObject.name.startsWith(prefix))) {
    byNode.set(e.involvedObject.name, [...(byNode.get(e.involvedObject.name) ?? []), e]);
  }
  return byNode;
}

export function isInitialised(node: Node | undefined): boolean {
  return (
    node !== undefined &&
    !(node.spec?.taints ?? []).some((t) => t.key === TAINT_UNINITIALIZED) &&
    Boolean(node.spec?.providerID)
  );
}

export const address = (type: NodeAddress["type"], value: string): NodeAddress => ({ type, address: value });

/** Lists every Node whose name starts with `prefix` (admin, paged by the server's default). */
export async function nodesWithPrefix(cp: ControlPlane, prefix: string): Promise<Node[]> {
  const list = await cp.admin.list<Node>(NODES);
  return list.items.filter((n) => n.metadata.name.startsWith(prefix));
}
