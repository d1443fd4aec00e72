/** The registered factory for `--cloud-provider=baremetal`, and what tests use. */
import type { ProviderFactory } from "../../src/cloud/provider.ts";
import { parseBaremetalConfig } from "./config.ts";
import { addressPoolCrd } from "../shared/address-pools/crd.ts";
import { GROUP } from "../shared/crd.ts";
import type { BaremetalProviderInput } from "./provider.ts";

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
    { apiGroups: [GROUP], resources: ["addresspools"], verbs: ["get", "list", "watch"] },
    { apiGroups: [GROUP], resources: ["addresspools/status"], verbs: ["patch"] },
  ],
  customResourceDefinitions: [addressPoolCrd()],
};

export { parseBaremetalConfig, type BaremetalConfig } from "./config.ts";
