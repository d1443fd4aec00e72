/** A vSphere provider wired to a vcsim, and Nodes as a kubelet on its VMs would register them. */
import type { CloudProvider } from "../../src/cloud/provider.ts";
import type { Node } from "../../src/kube/objects.ts";
import { testProviderContext, type RecordedCall } from "../../test/harness/provider-context.ts";
import type { Vcsim, VcsimVm } from "../../test/harness/vcsim.ts";
import { parseVSphereConfig } from "./config.ts";
import { byteSwapUuid } from "./node-identity.ts";
import { createVSphereProvider, type VSphereProviderOptions } from "./provider.ts";

/** vsphere.conf (YAML form) for `sim`; `extra` is appended (labels, nodes, loadBalancers sections). */
export function vcsimConfigText(sim: Vcsim, extra = ""): string {
  return [
    "global:",
    `  port: ${sim.port}`,
    `  caFile: ${sim.caFile}`,
    "vcenter:",
    "  vcsim:",
    `    server: ${sim.host}`,
    `    user: ${sim.username}`,
    `    password: ${JSON.stringify(sim.password)}`,
    "    datacenters: [DC0]",
    extra,
  ].join("\n");
}

export function vcsimProvider(
  sim: Vcsim,
  extra = "",
  calls: RecordedCall[] = [],
  options: VSphereProviderOptions = {},
): CloudProvider {
  return providerOfConfig(vcsimConfigText(sim, extra), calls, options);
}

/** A provider for the vsphere.conf `text`; a problem in it throws. */
export function providerOfConfig(
  text: string,
  calls: RecordedCall[] = [],
  options: VSphereProviderOptions = {},
): CloudProvider {
  const parsed = parseVSphereConfig(text);
  if (!parsed.ok) throw new Error(parsed.errors.join("; "));
  return createVSphereProvider(parsed.config, testProviderContext(calls), options);
}

/** The Node a kubelet on `vm` registers: named as its guest, system UUID as Linux reports it (byte-swapped). */
export function nodeOf(vm: VcsimVm, name = vm.hostName): Node {
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: { name },
    spec: {},
    status: { nodeInfo: { systemUUID: byteSwapUuid(vm.uuid).toUpperCase() } },
  };
}
