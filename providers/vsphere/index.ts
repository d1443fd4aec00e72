/** The registered factory for `--cloud-provider=vsphere`, and what tests use. */
import type { ProviderFactory } from "../../src/cloud/provider.ts";
import { parseVSphereConfig, type VSphereConfig } from "./config.ts";

export const vsphereProviderFactory: ProviderFactory<VSphereConfig> = {
  name: "vsphere",
  parseConfig: (text) => parseVSphereConfig(text),
  create: async (config, context) => (await import("./provider.ts")).createVSphereProvider(config, context),
  rbacRules: [
    // The allocated addresses go to an annotation announcers read (kube-vip.io/loadbalancerIPs).
    { apiGroups: [""], resources: ["services"], verbs: ["patch"] },
    // vsphere.conf may name a Secret with the vCenter credentials (secretName / secretNamespace).
    { apiGroups: [""], resources: ["secrets"], verbs: ["get"] },
  ],
};

export { parseVSphereConfig, type VSphereConfig } from "./config.ts";
