/** A vSphere provider wired to a vcsim, and Nodes as a kubelet on its VMs would register them. */
import { afterAll, beforeAll } from "bun:test";
import type { CloudProvider, InstancesV2 } from "../../src/cloud/provider.ts";
import type { Node } from "../../src/kube/objects.ts";
import { testProviderContext, type RecordedCall } from "../../test/harness/provider-context.ts";
import { startVcsim, type Vcsim, type VcsimOptions, type VcsimVm } from "../../test/harness/vcsim.ts";
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

/** A provider for the vsphere.conf `text`; a problem in it throws. Its log lines go to `lines`. */
export function providerOfConfig(
  text: string,
  calls: RecordedCall[] = [],
  options: VSphereProviderOptions = {},
  lines: string[] = [],
): CloudProvider {
  const parsed = parseVSphereConfig(text);
  if (!parsed.ok) throw new Error(parsed.errors.join("; "));
  return createVSphereProvider(parsed.config, testProviderContext(calls, lines), options);
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

export interface VcsimSession {
  readonly sim: Vcsim;
  readonly provider: CloudProvider;
  readonly instances: InstancesV2;
}

export interface VcsimSessionOptions {
  readonly inventory: VcsimOptions;
  /** Appended to the vsphere.conf (labels, nodes, loadBalancers sections). */
  readonly extra: string;
  readonly calls?: RecordedCall[];
  readonly options?: VSphereProviderOptions;
  /** Runs once the simulator serves, before the provider is made (tags, for instance). */
  readonly prepare?: (sim: Vcsim) => Promise<void>;
}

/**
 * A simulator and a provider on it for the enclosing describe block: started before its tests, closed
 * and stopped after them. The fields are read in tests, once beforeAll has filled them.
 */
export function vcsimSession(o: VcsimSessionOptions): VcsimSession {
  const session = {} as { sim: Vcsim; provider: CloudProvider; instances: InstancesV2 };
  beforeAll(async () => {
    session.sim = await startVcsim(o.inventory);
    await o.prepare?.(session.sim);
    session.provider = vcsimProvider(session.sim, o.extra, o.calls, o.options);
    session.instances = session.provider.instances as InstancesV2;
  }, 300_000);
  afterAll(async () => {
    await session.provider?.close?.();
    await session.sim?.stop();
  });
  return session;
}
