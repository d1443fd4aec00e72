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
import type { VSphereConfig } from "./config.ts";
import { instanceTypeOf } from "./instance-type.ts";
import type { Resolution, VmLookup } from "./lookup.ts";
import { providerIdOf } from "./node-identity.ts";
import { refKey, type VmDetails } from "./queries.ts";

/** Nodes per batch: one property-collector call carries them all. */
const MAX_BATCH_SIZE = 200;

const notFound = (node: Node, reason: string): InstanceNotFoundError => new InstanceNotFoundError(`no VM for node ${node.metadata.name}: ${reason}`);

/** A VM that disappeared between the scan and the details call is gone. */
const vanished = (node: Node): InstanceNotFoundError => notFound(node, "the VM was removed from vCenter");

interface Looked {
  readonly resolutions: readonly Resolution[];
  readonly details: ReadonlyMap<string, VmDetails>;
}

async function look(lookup: VmLookup, nodes: readonly Node[], signal?: AbortSignal): Promise<Looked> {
  const resolutions = await lookup.resolve(nodes, signal);
  const refs = resolutions.flatMap((r) => (r.kind === "found" ? [r.vm.ref] : []));
  return { resolutions, details: await lookup.describe(refs, signal) };
}

function stateOf(node: Node, resolution: Resolution, details: ReadonlyMap<string, VmDetails>): Answer<InstanceState> {
  if (resolution.kind === "error") return { error: resolution.error };
  if (resolution.kind === "absent") return { value: { exists: false } };
  const vm = details.get(refKey(resolution.vm.ref));
  if (!vm) return { value: { exists: false } };
  return { value: { exists: true, shutdown: vm.powerState !== "poweredOn" } };
}

function metadataOf(config: VSphereConfig, node: Node, vm: VmDetails, zone: { zone: string; region: string } | undefined): InstanceMetadata {
  const addresses = nodeAddressesOf(vm.hostName, vm.nics, config.nodes, config.vcenter.ipFamilies);
  if ("error" in addresses) throw new Error(`node ${node.metadata.name} (VM ${vm.name}): ${addresses.error}`);
  return {
    providerID: providerIdOf(vm.uuid),
    instanceType: instanceTypeOf(vm.numCpu, vm.memoryMB, vm.guestId),
    nodeAddresses: addresses.addresses,
    zone: zone?.zone ?? "",
    region: zone?.region ?? "",
  };
}

function answer<T>(compute: () => T): Answer<T> {
  try {
    return { value: compute() };
  } catch (error) {
    return { error: error as Error };
  }
}

export function vsphereInstances(config: VSphereConfig, lookup: VmLookup): InstancesV2 {
  async function instanceStateBatch(nodes: readonly Node[], signal?: AbortSignal): Promise<Answer<InstanceState>[]> {
    const { resolutions, details } = await look(lookup, nodes, signal);
    return nodes.map((node, i) => stateOf(node, resolutions[i] as Resolution, details));
  }

  async function instanceMetadataBatch(nodes: readonly Node[], signal?: AbortSignal): Promise<Answer<InstanceMetadata | undefined>[]> {
    const { resolutions, details } = await look(lookup, nodes, signal);
    const zones = await lookup.zones([...details.values()], config.labels, signal);
    return nodes.map((node, i) => {
      const r = resolutions[i] as Resolution;
      if (r.kind === "error") return { error: r.error };
      if (r.kind === "absent") return { error: notFound(node, r.reason) };
      const vm = details.get(refKey(r.vm.ref));
      if (!vm) return { error: vanished(node) };
      return answer(() => metadataOf(config, node, vm, zones.get(refKey(vm.ref))));
    });
  }

  const one = async <T>(batch: (nodes: readonly Node[], signal?: AbortSignal) => Promise<Answer<T>[]>, node: Node, signal?: AbortSignal): Promise<T> => {
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
