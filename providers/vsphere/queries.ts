/**
 * What the provider asks the property collector, and how it reads the answers: pure builders of filter
 * specs and readers of object contents. Each query is one round trip for any number of objects.
 */
import {
  asArray,
  filterSpec,
  moRefOf,
  textOf,
  traversal,
  type MoRef,
  type ObjectContent,
  type XmlNode,
} from "./soap-xml.ts";
import type { GuestMetadata } from "./guest-metadata.ts";

export interface VmSummary {
  readonly ref: MoRef;
  readonly name: string;
  /**
   * BIOS UUID, lower-case; empty while vSphere cannot read the VM's `config` (it leaves it unset while the
   * VM's files are unreachable, as in an all-paths-down storage outage, or early in its creation).
   */
  readonly uuid: string;
  readonly hostName: string;
  /** Every guest IP: the primary one (`guest.ipAddress`) first, then each vNIC's, as upstream's FindByIp. */
  readonly ips: readonly string[];
}

export interface GuestNic {
  readonly network: string;
  readonly ips: readonly string[];
  /** -1 for interfaces that are not vNICs (upstream skips them). */
  readonly deviceConfigId: number;
}

export interface VmDetails {
  readonly ref: MoRef;
  readonly name: string;
  readonly uuid: string;
  readonly numCpu: number;
  readonly memoryMB: number;
  readonly guestId: string;
  readonly hostName: string;
  readonly nics: readonly GuestNic[];
  readonly powerState: string;
  readonly host?: MoRef;
  readonly resourcePool?: MoRef;
  /** The VM's folder, or its vApp. */
  readonly parent?: MoRef;
  /** extraConfig's `guestinfo.metadata` and `guestinfo.metadata.encoding` (CAPV's cloud-init metadata). */
  readonly guestMetadata: GuestMetadata;
}

export interface EntityParent {
  readonly ref: MoRef;
  readonly name: string;
  readonly parent?: MoRef;
}

export const refKey = (ref: MoRef): string => `${ref.type}:${ref.value}`;

const FOLDERS = traversal("folders", "Folder", "childEntity", ["folders", "vapps"]);
const VAPPS = traversal("vapps", "VirtualApp", "vm", []);
const DC_TO_VMS = traversal("dcVms", "Datacenter", "vmFolder", ["folders", "vapps"]);
const PARENTS = traversal("parents", "ManagedEntity", "parent", ["parents"]);
const ENTITY_TYPES = [
  "HostSystem",
  "ClusterComputeResource",
  "ComputeResource",
  "Folder",
  "Datacenter",
  "ResourcePool",
  "VirtualApp",
];

/** Every Datacenter under the root folder (in nested folders too), with its name, and the folders above it. */
export const datacentersSpec = (root: MoRef): XmlNode =>
  filterSpec(
    [
      { type: "Datacenter", paths: ["name", "parent"] },
      { type: "Folder", paths: ["name", "parent"] },
    ],
    [{ obj: root, skip: true, selectSet: [traversal("folders", "Folder", "childEntity", ["folders"])] }],
  );

export interface DatacenterEntry {
  readonly ref: MoRef;
  readonly name: string;
  /** The inventory path below the root folder, as govmomi's finder takes it without its leading `/`: `folder/dc`. */
  readonly path: string;
}

export function readDatacenters(objects: readonly ObjectContent[]): DatacenterEntry[] {
  const byKey = new Map(objects.map((o) => [refKey(o.obj), o]));
  const pathOf = (o: ObjectContent): string => {
    const names: string[] = [];
    for (let at: ObjectContent | undefined = o; at && names.length <= byKey.size;) {
      names.unshift(textOf(at.props.get("name")));
      const parent = moRefOf(at.props.get("parent"));
      at = parent ? byKey.get(refKey(parent)) : undefined;
    }
    return names.join("/");
  };
  return objects
    .filter((o) => o.obj.type === "Datacenter")
    .map((o) => ({ ref: o.obj, name: textOf(o.props.get("name")), path: pathOf(o) }));
}

/** Every VM of the given datacenters: the few properties that find a node's VM. */
export const vmScanSpec = (datacenters: readonly MoRef[]): XmlNode =>
  filterSpec(
    [
      { type: "VirtualMachine", paths: ["name", "config.uuid", "guest.hostName", "guest.ipAddress", "guest.net"] },
      { type: "Datacenter", paths: ["name"] },
    ],
    datacenters.map((obj) => ({ obj, skip: false, selectSet: [DC_TO_VMS, FOLDERS, VAPPS] })),
  );

// A VM without a readable config is kept (with no UUID): dropping it would make its node look deleted.
export const readVmSummaries = (objects: readonly ObjectContent[]): VmSummary[] =>
  objects
    .filter((o) => o.obj.type === "VirtualMachine")
    .map((o) => ({
      ref: o.obj,
      name: textOf(o.props.get("name")),
      uuid: textOf(o.props.get("config.uuid")).toLowerCase(),
      hostName: textOf(o.props.get("guest.hostName")),
      ips: [
        ...new Set(
          [textOf(o.props.get("guest.ipAddress")), ...vnicIps(o.props.get("guest.net"))].filter((ip) => ip !== ""),
        ),
      ],
    }));

const METADATA = 'config.extraConfig["guestinfo.metadata"]';
const METADATA_ENCODING = 'config.extraConfig["guestinfo.metadata.encoding"]';

// Only the two extraConfig keys, by key (vCenter's and vcsim's keyed property paths), not the whole
// extraConfig, which holds every guestinfo value and can be large.
const DETAIL_PATHS = [
  "name",
  "config.uuid",
  "summary.config",
  "guest.hostName",
  "guest.net",
  "runtime.powerState",
  "runtime.host",
  "resourcePool",
  "parent",
  "parentVApp",
  METADATA,
  METADATA_ENCODING,
];

/** What a node's metadata needs, for the given VMs; VMs gone meanwhile are left out of the answer. */
export const vmDetailsSpec = (vms: readonly MoRef[]): XmlNode =>
  filterSpec(
    [{ type: "VirtualMachine", paths: DETAIL_PATHS }],
    vms.map((obj) => ({ obj, skip: false })),
  );

/** An OptionValue's value; absent when the key is not set (vCenter answers nothing, or an empty value). */
const optionValue = (value: unknown): string | undefined =>
  value && typeof value === "object" && "value" in value ? textOf((value as XmlNode).value) : undefined;

function readNics(value: unknown): GuestNic[] {
  const nics = asArray(((value ?? {}) as XmlNode).GuestNicInfo as XmlNode[] | undefined);
  return nics.map((nic) => ({
    network: textOf(nic.network),
    ips: asArray(nic.ipAddress as unknown[] | undefined).map(textOf),
    deviceConfigId: Number(textOf(nic.deviceConfigId) || "0"),
  }));
}

/** The IPs of a VM's vNICs (interfaces such as docker0, deviceConfigId -1, are shared by many VMs). */
const vnicIps = (net: unknown): string[] => readNics(net).flatMap((nic) => (nic.deviceConfigId === -1 ? [] : nic.ips));

// A VM whose config is unreadable is left out; the fresh scan that follows names it, so its node's answer is
// an error (`incompleteScan`), not "gone".
export function readVmDetails(objects: readonly ObjectContent[]): VmDetails[] {
  return objects
    .filter((o) => o.obj.type === "VirtualMachine" && o.props.has("config.uuid"))
    .map((o) => {
      const summary = (o.props.get("summary.config") ?? {}) as XmlNode;
      return {
        ref: o.obj,
        name: textOf(o.props.get("name")),
        uuid: textOf(o.props.get("config.uuid")).toLowerCase(),
        numCpu: Number(textOf(summary.numCpu) || "0"),
        memoryMB: Number(textOf(summary.memorySizeMB) || "0"),
        guestId: textOf(summary.guestId),
        hostName: textOf(o.props.get("guest.hostName")),
        nics: readNics(o.props.get("guest.net")),
        powerState: textOf(o.props.get("runtime.powerState")),
        host: moRefOf(o.props.get("runtime.host")),
        resourcePool: moRefOf(o.props.get("resourcePool")),
        parent: moRefOf(o.props.get("parent")) ?? moRefOf(o.props.get("parentVApp")),
        guestMetadata: {
          metadata: optionValue(o.props.get(METADATA)),
          encoding: optionValue(o.props.get(METADATA_ENCODING)),
        },
      };
    });
}

/** The given entities and all their ancestors (parent chains), each with its name and parent. */
export const ancestrySpec = (entities: readonly MoRef[]): XmlNode =>
  filterSpec(
    ENTITY_TYPES.map((type) => ({ type, paths: ["name", "parent"] })),
    entities.map((obj) => ({ obj, skip: false, selectSet: [PARENTS] })),
  );

export const readParents = (objects: readonly ObjectContent[]): EntityParent[] =>
  objects.map((o) => ({ ref: o.obj, name: textOf(o.props.get("name")), parent: moRefOf(o.props.get("parent")) }));
