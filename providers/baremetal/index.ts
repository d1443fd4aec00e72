/** The registered factory for `--cloud-provider=baremetal`, and what tests use. */
import type { ProviderFactory } from "../../src/cloud/provider.ts";
import { parseBaremetalConfig } from "./config.ts";
import { ADDRESS_POOL_RULES, addressPoolCrd } from "../shared/address-pools/crd.ts";
import type { BaremetalProviderInput } from "./provider.ts";
import { BARE_METAL_MACHINE_RULES, bareMetalMachineCrd } from "./machine-crd.ts";

export const baremetalProviderFactory: ProviderFactory<BaremetalProviderInput> = {
  name: "baremetal",
  parseConfig(text, path) {
    const parsed = parseBaremetalConfig(text);
    return parsed.ok ? { ok: true, config: { config: parsed.config, path, text } } : parsed;
  },
  create: async (input, context) => (await import("./provider.ts")).createBaremetalProvider(input, context),
  // The allocated addresses go to an annotation announcers read (kube-vip.io/loadbalancerIPs): a merge
  // patch of the Service's metadata, never an update, never its spec.
  rbacRules: [
    { apiGroups: [""], resources: ["services"], verbs: ["patch"] },
    // A machine's bmc may name a Secret with the BMC credentials, in any namespace (credentialsNamespace).
    { apiGroups: [""], resources: ["secrets"], verbs: ["get"] },
    ...ADDRESS_POOL_RULES,
    // inventory: { source: cluster } reads BareMetalMachine objects.
    ...BARE_METAL_MACHINE_RULES,
  ],
  customResourceDefinitions: [addressPoolCrd(), bareMetalMachineCrd()],
  // Pod routes belong to the CNI (BGP, VXLAN): there is no router API to program.
  withoutRoutes: true,
};

export { parseBaremetalConfig, type BaremetalConfig } from "./config.ts";
