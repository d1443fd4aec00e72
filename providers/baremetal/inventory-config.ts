/**
 * The `inventory` section of the cloud-config. Traits layer from general to specific: `defaults`, then the
 * zone's entry in `zones`, then the machine's rack, then the machine itself; labels merge in that order.
 *
 * ```yaml
 * inventory:
 *   defaults: { region: dc1, instanceType: metal, labels: { example.com/owner: infra } }
 *   zones: [{ name: dc1-a, region: dc1 }]
 *   racks: [{ name: r1, zone: dc1-a, instanceType: metal.large, labels: { example.com/power: feed-a } }]
 *   machines:
 *     - { name: worker-1, rack: r1, addresses: [{ type: InternalIP, address: 10.0.0.11 }] }
 *     - { pattern: "edge-*", rack: r1 }
 *     - { name: old-3, decommissioned: true }
 *   unmatchedNodes: leave      # leave | initialize | delete
 * ```
 *
 * `source: cluster` takes the machines from BareMetalMachine objects instead (machine-objects.ts): the
 * section then keeps `defaults`, `zones`, `racks` and `unmatchedNodes`, and lists no `machines`.
 */
import type { NodeAddress, NodeAddressType } from "../../src/kube/objects.ts";
import { parseIP } from "../../src/net/ip.ts";
import {
  isDnsSubdomain,
  labelsAt,
  labelValueProblem,
  listAt,
  mappingAt,
  onlyKeys,
  optionalBool,
  optionalString,
  type Problems,
  type Raw,
} from "../shared/config-reader.ts";
import { parseBmc } from "./bmc-config.ts";
import {
  globToRegExp,
  LABEL_RACK,
  PROVIDER_ID_SCHEME,
  UNMATCHED_POLICIES,
  type Inventory,
  type InventoryLayers,
  type InventorySource,
  type Machine,
  type MachineTraits,
  type NamedLayer,
  type TraitLayer,
  type UnmatchedPolicy,
} from "./inventory.ts";

const INVENTORY_KEYS = ["source", "defaults", "zones", "racks", "machines", "unmatchedNodes"];
const TRAIT_KEYS = ["zone", "region", "instanceType", "labels"];
const MACHINE_KEYS = [
  "name",
  "pattern",
  "providerID",
  "rack",
  "addresses",
  "decommissioned",
  "shutdown",
  "bmc",
  ...TRAIT_KEYS,
];
const ADDRESS_TYPES: readonly NodeAddressType[] = [
  "InternalIP",
  "ExternalIP",
  "Hostname",
  "InternalDNS",
  "ExternalDNS",
];
const PATTERN = /^[a-z0-9.*?-]+$/;
const PROVIDER_ID = /^[a-z][a-z0-9+.-]*:\/\/\S+$/;

/** zone, region and instance type become label values, so they are checked as such. */
function labelValue(p: Problems, raw: Raw, key: string, path: string): string | undefined {
  const value = optionalString(p, raw, key, path);
  const problem = value === undefined ? undefined : labelValueProblem(value);
  if (problem) p.add(`${path}.${key}`, problem);
  return problem ? undefined : value;
}

function readTraits(p: Problems, raw: Raw, path: string): TraitLayer {
  return {
    zone: labelValue(p, raw, "zone", path),
    region: labelValue(p, raw, "region", path),
    instanceType: labelValue(p, raw, "instanceType", path),
    labels: labelsAt(p, raw, "labels", path),
  };
}

/** `zones` and `racks`: named trait bundles, names unique. */
function readGroups(p: Problems, raw: Raw, key: "zones" | "racks"): Map<string, NamedLayer> {
  const groups = new Map<string, NamedLayer>();
  const keys = key === "zones" ? ["name", "region", "instanceType", "labels"] : ["name", ...TRAIT_KEYS];
  listAt(p, raw, key, "inventory").forEach((item, i) => {
    const path = `inventory.${key}[${i}]`;
    const entry = mappingAt(p, item, path);
    const name = entry ? labelValue(p, entry, "name", path) : undefined;
    if (!entry || !name) {
      p.add(path, "must be a mapping with a non-empty name");
      return;
    }
    onlyKeys(p, entry, path, keys);
    if (groups.has(name)) p.add(`${path}.name`, `${JSON.stringify(name)} is listed twice`);
    groups.set(name, { name, ...readTraits(p, entry, path) });
  });
  return groups;
}

function readAddress(p: Problems, item: unknown, path: string): NodeAddress | undefined {
  const raw = mappingAt(p, item, path);
  const type = raw?.type as NodeAddressType;
  const address = raw?.address;
  if (!raw || !ADDRESS_TYPES.includes(type) || typeof address !== "string") {
    p.add(path, `must be {type: ${ADDRESS_TYPES.join("|")}, address: string}`);
    return undefined;
  }
  const isIP = type === "InternalIP" || type === "ExternalIP";
  if (isIP ? !parseIP(address) : !isDnsSubdomain(address)) {
    p.add(`${path}.address`, `${JSON.stringify(address)} is not ${isIP ? "an IP address" : "a DNS name"}`);
    return undefined;
  }
  return { type, address };
}

/** Most specific wins; labels merge from general to specific, the rack label before the machine's own. */
export function layerTraits(context: InventoryLayers, rackName: string | undefined, own: TraitLayer): MachineTraits {
  const rack = rackName === undefined ? undefined : context.racks.get(rackName);
  const d = context.defaults;
  const zone = own.zone ?? rack?.zone ?? d.zone ?? "";
  const layers = [own, rack, context.zones.get(zone), d];
  const pick = (key: "region" | "instanceType"): string =>
    layers.map((l) => l?.[key]).find((v) => v !== undefined) ?? "";
  const rackLabel = rackName === undefined ? {} : { [LABEL_RACK]: rackName };
  const labels = Object.assign({}, ...layers.map((l) => l?.labels).reverse(), rackLabel, own.labels) as Record<
    string,
    string
  >;
  return { zone, region: pick("region"), instanceType: pick("instanceType"), labels };
}

function readIdentity(p: Problems, raw: Raw, path: string): { name?: string; pattern?: RegExp } | undefined {
  const name = optionalString(p, raw, "name", path);
  const pattern = optionalString(p, raw, "pattern", path);
  if ((name === undefined) === (pattern === undefined)) {
    p.add(path, "must have exactly one of name (one node) or pattern (a glob over node names)");
    return undefined;
  }
  if (name !== undefined && !isDnsSubdomain(name))
    p.add(`${path}.name`, `${JSON.stringify(name)} is not a valid node name`);
  if (pattern !== undefined && !PATTERN.test(pattern))
    p.add(
      `${path}.pattern`,
      `${JSON.stringify(pattern)} may hold only a-z, 0-9, '.', '-' and the wildcards '*' and '?'`,
    );
  return name !== undefined ? { name } : { pattern: globToRegExp(pattern ?? "") };
}

/** Fields that describe one machine only make sense on a `name` entry. */
function checkSingleMachineFields(p: Problems, raw: Raw, path: string, isPattern: boolean): void {
  if (!isPattern) return;
  for (const key of ["providerID", "addresses", "bmc"]) {
    if (raw[key] !== undefined) p.add(`${path}.${key}`, "belongs to one machine; a pattern entry matches many nodes");
  }
}

type MachineState = Pick<Machine, "providerID" | "decommissioned" | "shutdown" | "bmc">;

function readState(p: Problems, raw: Raw, path: string): MachineState {
  const providerID = optionalString(p, raw, "providerID", path);
  if (providerID !== undefined && !PROVIDER_ID.test(providerID))
    p.add(`${path}.providerID`, `${JSON.stringify(providerID)} is not of the form <scheme>://<id>`);
  const decommissioned = optionalBool(p, raw, "decommissioned", path) ?? false;
  const shutdown = optionalBool(p, raw, "shutdown", path) ?? false;
  if (decommissioned && shutdown)
    p.add(path, "cannot be both decommissioned (gone) and shutdown (powered off, still there)");
  const bmc = parseBmc(p, raw.bmc, `${path}.bmc`);
  if (raw.bmc !== undefined && raw.shutdown !== undefined)
    p.add(`${path}.shutdown`, "is read from the BMC when the machine names one; remove shutdown or bmc");
  return { providerID, decommissioned, shutdown, bmc };
}

/** One machine entry (a file's `machines[i]`, or a BareMetalMachine's spec), layered on `context`. */
export function readMachine(p: Problems, item: unknown, path: string, context: InventoryLayers): Machine | undefined {
  const raw = mappingAt(p, item, path);
  if (!raw) {
    p.add(path, "must be a mapping");
    return undefined;
  }
  onlyKeys(p, raw, path, MACHINE_KEYS);
  const identity = readIdentity(p, raw, path);
  if (!identity) return undefined;
  checkSingleMachineFields(p, raw, path, identity.pattern !== undefined);
  const rack = optionalString(p, raw, "rack", path);
  if (rack !== undefined && !context.racks.has(rack))
    p.add(`${path}.rack`, `no rack named ${JSON.stringify(rack)} in inventory.racks`);
  const { providerID, decommissioned, shutdown, bmc } = readState(p, raw, path);
  const addresses = listAt(p, raw, "addresses", path).flatMap(
    (a, i) => readAddress(p, a, `${path}.addresses[${i}]`) ?? [],
  );
  return {
    ...identity,
    providerID,
    addresses,
    decommissioned,
    shutdown,
    bmc,
    ...layerTraits(context, rack, readTraits(p, raw, path)),
  };
}

/** Names and providerIDs must each lead to one machine. */
function indexMachines(
  p: Problems,
  machines: readonly (Machine | undefined)[],
): Pick<Inventory, "byName" | "byProviderID" | "patterns"> {
  const byName = new Map<string, Machine>();
  const byProviderID = new Map<string, Machine>();
  const patterns: Machine[] = [];
  machines.forEach((m, i) => {
    if (!m) return;
    if (m.name === undefined) {
      patterns.push(m);
      return;
    }
    if (byName.has(m.name)) p.add(`inventory.machines[${i}].name`, `${JSON.stringify(m.name)} is listed twice`);
    byName.set(m.name, m);
    const id = m.providerID ?? `${PROVIDER_ID_SCHEME}${m.name}`;
    if (byProviderID.has(id))
      p.add(`inventory.machines[${i}]`, `providerID ${JSON.stringify(id)} is used by two machines`);
    byProviderID.set(id, m);
  });
  return { byName, byProviderID, patterns };
}

function readSource(p: Problems, raw: Raw): InventorySource {
  const source = optionalString(p, raw, "source", "inventory") ?? "file";
  if (source !== "file" && source !== "cluster") {
    p.add("inventory.source", "must be file or cluster");
    return "file";
  }
  if (source === "cluster" && raw.machines !== undefined)
    p.add(
      "inventory.machines",
      "source: cluster reads BareMetalMachine objects; remove machines (or set source: file)",
    );
  return source;
}

export function parseInventory(p: Problems, value: unknown): Inventory {
  const raw = mappingAt(p, value, "inventory") ?? {};
  onlyKeys(p, raw, "inventory", INVENTORY_KEYS);
  const source = readSource(p, raw);
  const rawDefaults = mappingAt(p, raw.defaults, "inventory.defaults") ?? {};
  onlyKeys(p, rawDefaults, "inventory.defaults", TRAIT_KEYS);
  const context: InventoryLayers = {
    defaults: readTraits(p, rawDefaults, "inventory.defaults"),
    zones: readGroups(p, raw, "zones"),
    racks: readGroups(p, raw, "racks"),
  };
  const machines = listAt(p, raw, "machines", "inventory").map((m, i) =>
    readMachine(p, m, `inventory.machines[${i}]`, context),
  );
  const policy = optionalString(p, raw, "unmatchedNodes", "inventory") ?? "leave";
  if (!UNMATCHED_POLICIES.includes(policy as UnmatchedPolicy))
    p.add("inventory.unmatchedNodes", `must be one of ${UNMATCHED_POLICIES.join(", ")}`);
  return {
    source,
    layers: context,
    ...indexMachines(p, machines),
    defaults: layerTraits(context, undefined, { labels: {} }),
    unmatchedNodes: policy as UnmatchedPolicy,
  };
}
