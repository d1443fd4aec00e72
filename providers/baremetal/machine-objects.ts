/**
 * The inventory from BareMetalMachine objects (pure): each object's spec is read like an entry of the
 * cloud-config's `machines` (`name` defaults to the object's name) and layered on the file's racks, zones
 * and defaults. Objects count oldest first, as file entries count in file order: patterns are tried in
 * that order, and a name or providerID an older object already claims is refused for the newer one.
 *
 * Safe deletion is the file's: a node is gone only when a readable machine says `decommissioned`, or when
 * no object names it and `unmatchedNodes: delete` says so. An object that cannot be read keeps its last
 * readable version in force; one that never was readable (or a refused duplicate) holds the nodes it
 * names, which are then "unknown" (an error for that node: never deleted, never tainted, not initialised).
 */
import type { KubeObject } from "../../src/kube/objects.ts";
import { isMapping, Problems, type Raw } from "../shared/config-reader.ts";
import { readMachine } from "./inventory-config.ts";
import { globToRegExp, PROVIDER_ID_SCHEME, type HeldClaim, type Inventory, type Machine } from "./inventory.ts";

export interface MachineObject extends KubeObject {
  spec?: Record<string, unknown>;
}

/** What became of one object: in force (maybe an earlier version of it), or holding its nodes. */
export interface ObjectVerdict {
  readonly object: MachineObject;
  /** Empty when the object is in force as it is. */
  readonly problems: readonly string[];
  /** True when an earlier readable version stays in force instead. */
  readonly keptEarlier: boolean;
}

export interface MachineSet {
  /** `base` with the objects' machines. */
  readonly inventory: Inventory;
  readonly verdicts: readonly ObjectVerdict[];
  /** Each object's machine as last read, by object name: the next call's `earlier`. */
  readonly readable: ReadonlyMap<string, Machine>;
}

/** The spec as a `machines` entry: without name and pattern, it names the node the object is named after. */
function entryOf(object: MachineObject): Raw {
  const spec = isMapping(object.spec) ? object.spec : {};
  return spec.name === undefined && spec.pattern === undefined ? { ...spec, name: object.metadata.name } : spec;
}

export function readMachineObject(object: MachineObject, base: Inventory): { machine?: Machine; problems: string[] } {
  const p = new Problems();
  const machine = readMachine(p, entryOf(object), "spec", base.layers);
  return p.list.length > 0 ? { problems: p.list } : { machine, problems: [] };
}

/** The nodes an object names, read leniently (it may be unreadable). */
function claimOf(object: MachineObject, reason: string): HeldClaim {
  const entry = entryOf(object);
  const text = (key: string): string | undefined => (typeof entry[key] === "string" ? entry[key] : undefined);
  const pattern = text("pattern");
  return {
    name: text("name"),
    providerID: text("providerID"),
    pattern: pattern === undefined ? undefined : globToRegExp(pattern),
    reason,
  };
}

const olderFirst = (a: MachineObject, b: MachineObject): number =>
  (a.metadata.creationTimestamp ?? "").localeCompare(b.metadata.creationTimestamp ?? "") ||
  a.metadata.name.localeCompare(b.metadata.name);

/** Why a name or providerID an older object holds is refused to this one, if it is. */
function clashOf(machine: Machine, owners: Owners): string | undefined {
  if (machine.name === undefined) return undefined;
  const id = machine.providerID ?? `${PROVIDER_ID_SCHEME}${machine.name}`;
  const named = owners.byName.get(machine.name);
  if (named) return `node ${machine.name} is already named by BareMetalMachine ${named}, which is older`;
  const owner = owners.byID.get(id);
  return owner ? `providerID ${id} is already used by BareMetalMachine ${owner}, which is older` : undefined;
}

interface Index {
  readonly byName: Map<string, Machine>;
  readonly byProviderID: Map<string, Machine>;
  readonly patterns: Machine[];
}

/** Which object holds each node name and providerID. */
interface Owners {
  readonly byName: Map<string, string>;
  readonly byID: Map<string, string>;
}

function add(index: Index, owners: Owners, machine: Machine, owner: string): void {
  if (machine.name === undefined) {
    index.patterns.push(machine);
    return;
  }
  const id = machine.providerID ?? `${PROVIDER_ID_SCHEME}${machine.name}`;
  index.byName.set(machine.name, machine);
  index.byProviderID.set(id, machine);
  owners.byName.set(machine.name, owner);
  owners.byID.set(id, owner);
}

/** The machine of one object: as read, else its earlier readable version, else none (with why). */
function resolve(
  object: MachineObject,
  base: Inventory,
  earlier: ReadonlyMap<string, Machine>,
): { machine?: Machine; problems: string[]; keptEarlier: boolean; readable?: Machine } {
  const read = readMachineObject(object, base);
  if (read.machine) return { machine: read.machine, problems: [], keptEarlier: false, readable: read.machine };
  const kept = earlier.get(object.metadata.name);
  return { machine: kept, problems: read.problems, keptEarlier: kept !== undefined, readable: kept };
}

export function machinesFromObjects(
  base: Inventory,
  objects: readonly MachineObject[],
  earlier: ReadonlyMap<string, Machine> = new Map(),
): MachineSet {
  const index: Index = { byName: new Map(), byProviderID: new Map(), patterns: [] };
  const owners: Owners = { byName: new Map(), byID: new Map() };
  const held: HeldClaim[] = [];
  const readable = new Map<string, Machine>();
  const verdicts = [...objects].sort(olderFirst).map((object): ObjectVerdict => {
    const name = object.metadata.name;
    const r = resolve(object, base, earlier);
    if (r.readable) readable.set(name, r.readable);
    const clash = r.machine && clashOf(r.machine, owners);
    const problems = clash ? [...r.problems, clash] : r.problems;
    if (r.machine && !clash) add(index, owners, r.machine, name);
    else held.push(claimOf(object, `BareMetalMachine ${name} is not used: ${problems.join("; ")}`));
    return { object, problems, keptEarlier: r.keptEarlier && !clash };
  });
  return { inventory: { ...base, ...index, held }, verdicts, readable };
}
