/**
 * Keys and sections of upstream's vsphere.conf schema (and of the files it is shared with: the in-tree
 * provider's, vSphere CSI's) that this provider does not use. Upstream ignores what it does not read; so
 * do we, with a warning naming each one, while a key in no schema (a typo) is still refused by name.
 */
import type { Raw } from "../shared/config-reader.ts";

/** In `global` and in a `vcenter` entry. */
export const IGNORED_VCENTER_KEYS: Readonly<Record<string, string>> = {
  soapRoundtripCount: "it tunes upstream's Go client",
  apiDisable: "it turns off upstream's gRPC API, which this provider does not have",
  apiBinding: "it binds upstream's gRPC API, which this provider does not have",
  vmUUID: "the in-tree provider's; VMs are found by each node's UUID",
  vmName: "the in-tree provider's; VMs are found by each node's UUID",
  serviceAccount: "the manager's own service account is used",
  clusterId: "vSphere CSI's; the cloud-controller-manager does not read it",
  workingDir: "the in-tree provider's VM folder; VMs are found by each node's UUID",
};

export const IGNORED_LABEL_KEYS: Readonly<Record<string, string>> = {
  topologyCategories: "vSphere CSI's; zone and region come from labels.zone and labels.region",
};

/** Top-level sections, lower-cased as the INI form reads them. */
export const IGNORED_SECTIONS: Readonly<Record<string, string>> = {
  workspace: "the in-tree provider's; name the vCenter under vcenter / [VirtualCenter]",
  disk: "the in-tree provider's; disks belong to vSphere CSI",
  network: "the in-tree provider's; use nodes.internalVmNetworkName / externalVmNetworkName",
};

/** One line for each ignored key present in `raw`, naming it under `path`. */
export function ignoredIn(raw: Raw, path: string, table: Readonly<Record<string, string>>): string[] {
  return Object.keys(raw)
    .filter((key) => key in table || key.toLowerCase() in table)
    .map((key) => `${path === "" ? key : `${path}.${key}`}: ignored (${table[key] ?? table[key.toLowerCase()]})`);
}
