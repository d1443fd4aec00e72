/**
 * The machine inventory and the one pure question the instance calls ask of it: what does the inventory
 * say about this Node? Lookup follows upstream InstancesV2: `spec.providerID` first, then the node name
 * (exact names before patterns, patterns in file order). With machines from BareMetalMachine objects the
 * inventory may also be unread (not listed yet) or hold nodes whose object cannot be read: the answer for
 * those is "unknown", an error for that node alone, never "gone".
 */
import type { InstanceMetadata } from "../../src/cloud/provider.ts";
import type { Node, NodeAddress } from "../../src/kube/objects.ts";
import { ANNOTATION_PROVIDED_NODE_IP } from "../../src/kube/well-known.ts";
import type { BmcSettings } from "./bmc-config.ts";

export const PROVIDER_ID_SCHEME = "baremetal://";
/** Added to every machine that names a rack, so workloads can spread across racks. */
export const LABEL_RACK = "baremetal.cloudprovider.io/rack";

/** What a node has in common with its rack, zone and the inventory defaults. */
export interface MachineTraits {
  readonly zone: string;
  readonly region: string;
  readonly instanceType: string;
  readonly labels: Readonly<Record<string, string>>;
}

export interface Machine extends MachineTraits {
  /** The exact node name; absent for a pattern entry. */
  readonly name?: string;
  /** Matches node names; present exactly when `name` is absent. */
  readonly pattern?: RegExp;
  /** Explicit providerID; otherwise `baremetal://<node name>`. */
  readonly providerID?: string;
  readonly addresses: readonly NodeAddress[];
  /** The machine is gone for good: its NotReady node may be deleted. */
  readonly decommissioned: boolean;
  /** Powered off on purpose (maintenance): the node is shut down, not gone. Set by hand; see `bmc`. */
  readonly shutdown: boolean;
  /** The machine's Redfish system: when present, power state and existence come from it, not the file. */
  readonly bmc?: BmcSettings;
}

/** One level of the layering: `defaults`, a zone's or a rack's entry, or a machine's own fields. */
export interface TraitLayer {
  readonly zone?: string;
  readonly region?: string;
  readonly instanceType?: string;
  readonly labels: Readonly<Record<string, string>>;
}

export interface NamedLayer extends TraitLayer {
  readonly name: string;
}

/** What a machine's traits are layered on: kept, because BareMetalMachine objects are layered on it too. */
export interface InventoryLayers {
  readonly defaults: TraitLayer;
  readonly zones: ReadonlyMap<string, NamedLayer>;
  readonly racks: ReadonlyMap<string, NamedLayer>;
}

/** Where the machines come from: the cloud-config's `machines`, or BareMetalMachine objects. */
export type InventorySource = "file" | "cluster";

/** Nodes an unreadable BareMetalMachine names: nothing is known about them until it is fixed. */
export interface HeldClaim {
  readonly name?: string;
  readonly providerID?: string;
  readonly pattern?: RegExp;
  /** Why, for the error the node's lookup fails with. */
  readonly reason: string;
}

/**
 * What to do with a node no machine matches. `leave` (default) never deletes and never initialises it;
 * `initialize` gives it the inventory defaults; `delete` treats it as gone, like a cloud would.
 */
export type UnmatchedPolicy = "leave" | "initialize" | "delete";
export const UNMATCHED_POLICIES: readonly UnmatchedPolicy[] = ["leave", "initialize", "delete"];

export interface Inventory {
  readonly source: InventorySource;
  readonly layers: InventoryLayers;
  readonly byName: ReadonlyMap<string, Machine>;
  readonly byProviderID: ReadonlyMap<string, Machine>;
  readonly patterns: readonly Machine[];
  readonly defaults: MachineTraits;
  readonly unmatchedNodes: UnmatchedPolicy;
  /** Set while the machines are not read yet (cluster source): every node is unknown meanwhile. */
  readonly unread?: string;
  /** Nodes named by objects that cannot be read and have no earlier readable version (cluster source). */
  readonly held?: readonly HeldClaim[];
}

/** The inventory's answer for one Node. */
export type Verdict =
  | {
      readonly kind: "present";
      readonly metadata: InstanceMetadata;
      readonly shutdown: boolean;
      /** Ask this BMC for power state and existence instead of trusting `shutdown`. */
      readonly bmc?: BmcSettings;
    }
  /** Definitely gone: decommissioned, or unmatched under `unmatchedNodes: delete`. */
  | { readonly kind: "absent"; readonly reason: string }
  /** Unmatched under `leave`: exists, but nothing is known about it. */
  | { readonly kind: "unlisted" }
  /** Cannot say (machines unread, or the node's object unreadable): an error, never "gone". */
  | { readonly kind: "unknown"; readonly reason: string };

interface Match {
  readonly machine: MachineTraits & Partial<Machine>;
  /** The node name the match was made for; the default providerID is built from it. */
  readonly name: string;
}

function byNodeName(inventory: Inventory, name: string): Match | undefined {
  const exact = inventory.byName.get(name);
  if (exact) return { machine: exact, name };
  const pattern = inventory.patterns.find((m) => m.pattern?.test(name));
  return pattern ? { machine: pattern, name } : undefined;
}

export function findMachine(inventory: Inventory, node: Node): Match | undefined {
  const providerID = node.spec?.providerID ?? "";
  if (providerID !== "") {
    const explicit = inventory.byProviderID.get(providerID);
    if (explicit) return { machine: explicit, name: explicit.name ?? node.metadata.name };
    const named = providerID.startsWith(PROVIDER_ID_SCHEME)
      ? byNodeName(inventory, providerID.slice(PROVIDER_ID_SCHEME.length))
      : undefined;
    if (named) return named;
  }
  return byNodeName(inventory, node.metadata.name);
}

/**
 * The node's own addresses (kubelet's `--node-ip` and hostname), for machines the inventory lists no
 * addresses for. Upstream refuses to initialise a node whose provided-node-ip annotation matches no
 * provider address, so an empty answer would block every kubelet started with `--node-ip`.
 */
function kubeletAddresses(node: Node): NodeAddress[] {
  const own = (node.status?.addresses ?? []).map((a) => ({ ...a }));
  const provided = (node.metadata.annotations?.[ANNOTATION_PROVIDED_NODE_IP] ?? "").split(",").map((ip) => ip.trim());
  const missing = provided.filter((ip) => ip !== "" && !own.some((a) => a.address === ip));
  return [...missing.map((address): NodeAddress => ({ type: "InternalIP", address })), ...own];
}

function metadataOf(match: Match, node: Node): InstanceMetadata {
  const m = match.machine;
  const listed = m.addresses ?? [];
  return {
    providerID: m.providerID ?? `${PROVIDER_ID_SCHEME}${match.name}`,
    instanceType: m.instanceType,
    nodeAddresses: listed.length > 0 ? listed : kubeletAddresses(node),
    zone: m.zone,
    region: m.region,
    additionalLabels: m.labels,
  };
}

/** The unreadable object that names this node, when no readable machine names it exactly. */
function heldBy(inventory: Inventory, node: Node): HeldClaim | undefined {
  const name = node.metadata.name;
  const providerID = node.spec?.providerID ?? "";
  const fromID = providerID.startsWith(PROVIDER_ID_SCHEME) ? providerID.slice(PROVIDER_ID_SCHEME.length) : undefined;
  return inventory.held?.find(
    (c) =>
      (providerID !== "" && c.providerID === providerID) ||
      (c.name !== undefined && (c.name === name || c.name === fromID)) ||
      c.pattern?.test(name),
  );
}

/** A node no machine matches: what `unmatchedNodes` says. */
function judgeUnmatched(inventory: Inventory, node: Node): Verdict {
  switch (inventory.unmatchedNodes) {
    case "leave":
      return { kind: "unlisted" };
    case "initialize":
      return {
        kind: "present",
        metadata: metadataOf({ machine: inventory.defaults, name: node.metadata.name }, node),
        shutdown: false,
      };
    case "delete":
      return {
        kind: "absent",
        reason: `node ${node.metadata.name} matches no machine in the inventory (unmatchedNodes: delete)`,
      };
  }
}

export function judgeNode(inventory: Inventory, node: Node): Verdict {
  if (inventory.unread !== undefined) return { kind: "unknown", reason: inventory.unread };
  const match = findMachine(inventory, node);
  const held = match && match.machine.pattern === undefined ? undefined : heldBy(inventory, node);
  if (held) return { kind: "unknown", reason: held.reason };
  if (!match) return judgeUnmatched(inventory, node);
  if (match.machine.decommissioned)
    return { kind: "absent", reason: `machine ${match.name} is decommissioned in the inventory` };
  const { shutdown, bmc } = match.machine;
  return { kind: "present", metadata: metadataOf(match, node), shutdown: shutdown ?? false, bmc };
}

/** Glob (`*`, `?`) over node-name characters to an anchored RegExp. */
export function globToRegExp(glob: string): RegExp {
  const body = [...glob]
    .map((c) => (c === "*" ? ".*" : c === "?" ? "." : c.replace(/[.\\^$+{}()|[\]]/g, "\\$&")))
    .join("");
  return new RegExp(`^${body}$`);
}
