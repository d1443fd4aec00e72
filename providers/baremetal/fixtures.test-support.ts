/** Builders for the bare-metal provider's own tests; Service builders live with the address pools. */
import type { Node } from "../../src/kube/objects.ts";

export function node(name: string, o: { providerID?: string } = {}): Node {
  return { apiVersion: "v1", kind: "Node", metadata: { name }, spec: o.providerID ? { providerID: o.providerID } : {} };
}
