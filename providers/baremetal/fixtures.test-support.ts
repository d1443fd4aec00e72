/** Builders for the bare-metal provider's own tests; Service builders live with the address pools. */
import type { Node } from "../../src/kube/objects.ts";
import { LABEL_RACK } from "./inventory.ts";

export function node(name: string, o: { providerID?: string } = {}): Node {
  return { apiVersion: "v1", kind: "Node", metadata: { name }, spec: o.providerID ? { providerID: o.providerID } : {} };
}

/** What both inventories (file and objects) say of worker-1 at 10.0.0.11 in rack r1 of zone dc1-b. */
export const WORKER_1_IN_RACK_R1 = {
  kind: "present",
  shutdown: false,
  metadata: {
    providerID: "baremetal://worker-1",
    zone: "dc1-b",
    region: "dc1",
    instanceType: "metal",
    nodeAddresses: [{ type: "InternalIP", address: "10.0.0.11" }],
    additionalLabels: { [LABEL_RACK]: "r1" },
  },
} as const;
