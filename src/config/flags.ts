/**
 * The manager's flags, named, defaulted and grouped like upstream `cloud-controller-manager`
 * (k8s.io/cloud-provider options, controller-manager generic options, apiserver serving/authn/authz
 * options, component-base logging). Values stay text here; `config.ts` turns them into typed settings.
 *
 * `status: "compat"` marks flags that parse for drop-in compatibility but change nothing; `--help` says so
 * and the manager warns once at start when one is set.
 */
import type { FlagSpec } from "./flag-spec.ts";
import { loggingFlags, beyondFlags } from "./flags-logging.ts";
import { cloudFlags, controllerFlags, genericFlags, leaderFlags } from "./flags-manager.ts";
import { authnFlags, authzFlags, servingFlags, webhookFlags } from "./flags-serving.ts";

export type { FlagGroup, FlagSpec, FlagType } from "./flag-spec.ts";

export const FLAGS: readonly FlagSpec[] = [
  ...cloudFlags,
  ...genericFlags,
  ...controllerFlags,
  ...leaderFlags,
  ...servingFlags,
  ...authnFlags,
  ...authzFlags,
  ...webhookFlags,
  ...loggingFlags,
  ...beyondFlags,
];

const byName = new Map(FLAGS.map((spec) => [spec.name, spec]));

export function flagSpec(name: string): FlagSpec | undefined {
  return byName.get(name);
}
