/**
 * How a Node names its VM, in upstream's order: the providerID (`vsphere://<BIOS UUID>`), else the
 * node's system UUID (byte-swapped as current Linux kernels report a VM's UUID, then as given), else its
 * addresses and name. UUIDs are compared lower-case, as upstream writes them.
 */
import type { Node } from "../../src/kube/objects.ts";

export const PROVIDER_ID_PREFIX = "vsphere://";

export const providerIdOf = (uuid: string): string => `${PROVIDER_ID_PREFIX}${uuid.toLowerCase()}`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Upstream `ConvertK8sUUIDtoNormal`: the first three groups byte-reversed (SMBIOS stores them
 * little-endian; vSphere shows them big-endian).
 */
export function byteSwapUuid(uuid: string): string {
  const u = uuid.toLowerCase();
  if (!UUID.test(u)) return u;
  const swap = (group: string): string => group.match(/../g)?.reverse().join("") ?? group;
  const [a = "", b = "", c = "", d = "", e = ""] = u.split("-");
  return [swap(a), swap(b), swap(c), d, e].join("-");
}

export interface NodeKeys {
  /** From the providerID; set when the Node has one of ours. */
  readonly providerUuid?: string;
  /** Candidate BIOS UUIDs from the system UUID, in search order. */
  readonly systemUuids: readonly string[];
  readonly name: string;
  readonly addresses: readonly string[];
  /** A providerID of another provider: this provider cannot answer for the Node. */
  readonly foreignProviderId?: string;
}

const systemUuidOf = (node: Node): string => (node.status?.nodeInfo?.systemUUID ?? "").trim().toLowerCase();

export function nodeKeys(node: Node): NodeKeys {
  const providerID = node.spec?.providerID ?? "";
  const system = systemUuidOf(node);
  const systemUuids = system === "" ? [] : [...new Set([byteSwapUuid(system), system])];
  const addresses = (node.status?.addresses ?? [])
    .filter((a) => a.type === "InternalIP" || a.type === "ExternalIP")
    .map((a) => a.address);
  const base = { systemUuids, name: node.metadata.name.toLowerCase(), addresses };
  if (providerID === "") return base;
  if (!providerID.startsWith(PROVIDER_ID_PREFIX)) return { ...base, foreignProviderId: providerID };
  return { ...base, providerUuid: providerID.slice(PROVIDER_ID_PREFIX.length).replace(/^\/+/, "").toLowerCase() };
}
