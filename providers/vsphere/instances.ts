/**
 * InstancesV2 over vCenter with the upstream CPI's semantics: providerID `vsphere://<BIOS UUID>`,
 * addresses from the guest's NICs, the CPI's instance type, zone and region from tags, shutdown when not
 * powered on. Single-node calls are batches of one; a batch costs a scan (shared, cached), one details
 * call and, with tag categories configured, one tag call.
 */
import { InstanceNotFoundError } from "../../src/cloud/errors.ts";
import type { Answer, InstanceMetadata, InstancesV2, InstanceState } from "../../src/cloud/provider.ts";
import type { Node } from "../../src/kube/objects.ts";
import { nodeAddressesOf } from "./addresses.ts";
import { staticAddressesOf } from "./guest-metadata.ts";
import type { VSphereConfig } from "./config.ts";
import { instanceTypeOf } from "./instance-type.ts";
import type { Described, Resolution, VmLookup } from "./lookup.ts";
import { providerIdOf } from "./node-identity.ts";
import { refKey, type VmDetails, type VmSummary } from "./queries.ts";
import type { Topology } from "./zones.ts";

/** Nodes per batch: one property-collector call carries them all. */
const MAX_BATCH_SIZE = 200;

const notFound = (node: Node, reason: string): InstanceNotFoundError =>
  new InstanceNotFoundError(`no VM for node ${node.metadata.name}: ${reason}`);

interface Looked extends Described {
  readonly resolutions: readonly Resolution[];
}

async function look(lookup: VmLookup, nodes: readonly Node[], signal?: AbortSignal): Promise<Looked> {
  const resolutions = await lookup.resolve(nodes, signal);
  const refs = resolutions.flatMap((r) => (r.kind === "found" ? [r.vm.ref] : []));
  return { resolutions, ...(await lookup.describe(refs, signal)) };
}

/** The VM behind a found node: its details, or gone (definitely), or an error (answer incomplete). */
function vmOf(node: Node, vm: VmSummary, looked: Described): Answer<VmDetails> {
  const details = looked.details.get(refKey(vm.ref));
  if (details) return { value: details };
  if (looked.gone.has(refKey(vm.ref))) return { error: notFound(node, "the VM was removed from vCenter") };
  if (looked.incomplete)
    return {
      error: new Error(`vCenter's answer lacked VM ${vm.name} of node ${node.metadata.name}; ${looked.incomplete}`),
    };
  return {
    error: new Error(
      `vCenter's answer lacked VM ${vm.name} (${vm.ref.value}) of node ${node.metadata.name}, which still exists`,
    ),
  };
}

const unmatched = (node: Node, reason: string): Error =>
  new Error(`no VM found for node ${node.metadata.name} without a providerID: ${reason}`);

function stateOf(node: Node, resolution: Resolution, looked: Described): Answer<InstanceState> {
  if (resolution.kind === "error") return { error: resolution.error };
  if (resolution.kind === "unmatched") return { error: unmatched(node, resolution.reason) };
  if (resolution.kind === "absent") return { value: { exists: false } };
  const vm = vmOf(node, resolution.vm, looked);
  if ("value" in vm) return { value: { exists: true, shutdown: vm.value.powerState !== "poweredOn" } };
  return vm.error instanceof InstanceNotFoundError ? { value: { exists: false } } : vm;
}

function metadataOf(config: VSphereConfig, node: Node, vm: VmDetails, zone?: Answer<Topology>): InstanceMetadata {
  if (zone && "error" in zone) throw new Error(`node ${node.metadata.name}: ${zone.error.message}`);
  // Metadata that cannot be read only loses the preference for static addresses (upstream fails the node).
  const staticIps = staticAddressesOf(vm.guestMetadata).addresses;
  const guest = { hostName: vm.hostName, nics: vm.nics, staticIps };
  const addresses = nodeAddressesOf(guest, config.nodes, config.vcenter.ipFamilies);
  if ("error" in addresses) throw new Error(`node ${node.metadata.name} (VM ${vm.name}): ${addresses.error}`);
  return {
    providerID: providerIdOf(vm.uuid),
    instanceType: instanceTypeOf(vm.numCpu, vm.memoryMB, vm.guestId),
    nodeAddresses: addresses.addresses,
    zone: zone?.value.zone ?? "",
    region: zone?.value.region ?? "",
  };
}

function answer<T>(compute: () => T): Answer<T> {
  try {
    return { value: compute() };
  } catch (error) {
    return { error: error as Error };
  }
}

/** With upstream's SKIP_NODE_DELETION a VM gone is an error, so the lifecycle controller never deletes the Node. */
function kept(node: Node, state: Answer<InstanceState>): Answer<InstanceState> {
  if (!("value" in state) || state.value.exists) return state;
  return {
    error: new Error(
      `no VM for node ${node.metadata.name}, kept: SKIP_NODE_DELETION is set, so Nodes are never deleted`,
    ),
  };
}

export interface InstancesOptions {
  /** Upstream's SKIP_NODE_DELETION: a VM gone is an error instead of "does not exist". */
  readonly skipNodeDeletion?: boolean;
}

export function vsphereInstances(config: VSphereConfig, lookup: VmLookup, options: InstancesOptions = {}): InstancesV2 {
  async function instanceStateBatch(nodes: readonly Node[], signal?: AbortSignal): Promise<Answer<InstanceState>[]> {
    const looked = await look(lookup, nodes, signal);
    return nodes.map((node, i) => {
      const state = stateOf(node, looked.resolutions[i] as Resolution, looked);
      return options.skipNodeDeletion ? kept(node, state) : state;
    });
  }

  async function instanceMetadataBatch(
    nodes: readonly Node[],
    signal?: AbortSignal,
  ): Promise<Answer<InstanceMetadata | undefined>[]> {
    const looked = await look(lookup, nodes, signal);
    const zones = await lookup.zones([...looked.details.values()], config.labels, signal);
    return nodes.map((node, i) => {
      const r = looked.resolutions[i] as Resolution;
      if (r.kind === "error") return { error: r.error };
      if (r.kind === "unmatched") return { error: unmatched(node, r.reason) };
      if (r.kind === "absent") return { error: notFound(node, r.reason) };
      const vm = vmOf(node, r.vm, looked);
      if ("error" in vm) return vm;
      return answer(() => metadataOf(config, node, vm.value, zones.get(refKey(vm.value.ref))));
    });
  }

  const one = async <T>(
    batch: (nodes: readonly Node[], signal?: AbortSignal) => Promise<Answer<T>[]>,
    node: Node,
    signal?: AbortSignal,
  ): Promise<T> => {
    const [result] = await batch([node], signal);
    if (!result) throw new Error("empty answer");
    if ("error" in result) throw result.error;
    return result.value;
  };

  return {
    instanceExists: async (node, signal) => (await one(instanceStateBatch, node, signal)).exists,
    async instanceShutdown(node, signal) {
      const state = await one(instanceStateBatch, node, signal);
      if (!state.exists) throw notFound(node, "the VM is gone");
      return state.shutdown;
    },
    instanceMetadata: (node, signal) => one(instanceMetadataBatch, node, signal),
    batch: { maxBatchSize: MAX_BATCH_SIZE, instanceMetadataBatch, instanceStateBatch },
  };
}
