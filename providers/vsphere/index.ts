/** The registered factory for `--cloud-provider=vsphere`, and what tests use. */
import type { ProviderFactory } from "../../src/cloud/provider.ts";
import { parseVSphereConfig, type VSphereConfig } from "./config.ts";
import { ADDRESS_POOL_RULES, addressPoolCrd } from "../shared/address-pools/crd.ts";

export const vsphereProviderFactory: ProviderFactory<VSphereConfig> = {
  name: "vsphere",
  parseConfig: (text) => parseVSphereConfig(text),
  create: async (config, context) =>
    (await import("./provider.ts")).createVSphereProvider(config, context, { environment: context.env }),
  rbacRules: [
    // The allocated addresses go to an annotation announcers read (kube-vip.io/loadbalancerIPs).
    { apiGroups: [""], resources: ["services"], verbs: ["patch"] },
    // vsphere.conf may name a Secret with the vCenter credentials (secretName / secretNamespace).
    { apiGroups: [""], resources: ["secrets"], verbs: ["get"] },
    // loadBalancers.source: cluster reads the pools from AddressPool objects and writes their status.
    ...ADDRESS_POOL_RULES,
  ],
  customResourceDefinitions: [addressPoolCrd()],
  // Upstream's routes are NSX-T's, which this provider does not implement; pod routes belong to the CNI.
  withoutRoutes: true,
};

export { parseVSphereConfig, type VSphereConfig } from "./config.ts";
