/**
 * The BareMetalMachine custom resource: one machine of the inventory per object, cluster-scoped, with the
 * fields of an entry of the cloud-config's `inventory.machines` (inventory-config.ts reads both). Read with
 * `inventory: { source: cluster }`; racks, zones, defaults and `unmatchedNodes` stay in the cloud-config.
 * The schema refuses what it can say cheaply; the rest (a rack the file lacks, a reserved label key, a BMC
 * address that names no system) is checked when the object is read, and reported as a Warning event.
 */
import type { PolicyRule } from "../../src/kube/objects.ts";
import {
  bool,
  customResourceDefinition,
  GROUP,
  list,
  obj,
  resourceOf,
  str,
  stringMap,
  type KindDefinition,
} from "../shared/crd.ts";

const LABEL_VALUE = { maxLength: 63 };
const ADDRESS_TYPES = ["InternalIP", "ExternalIP", "Hostname", "InternalDNS", "ExternalDNS"];

const bmcSchema = obj(
  "The machine's Redfish system: its power state and existence come from it (fields as metal3's BareMetalHost).",
  {
    address: str(
      "The Redfish ComputerSystem: redfish://, redfish+https://, redfish+http://, metal3's other Redfish drivers (idrac-redfish://, ilo5-redfish://, …), https:// or http://; path ending in /Systems/<id>.",
      { maxLength: 2048 },
    ),
    credentialsName: str("A Secret with keys username and password.", { maxLength: 253 }),
    credentialsNamespace: str("The Secret's namespace; default the manager's own.", { maxLength: 63 }),
    credentialsDirectory: str(
      "Instead of a Secret: a directory on the manager's host with files username and password.",
    ),
    disableCertificateVerification: bool("Accept any certificate from the BMC."),
    caFile: str("CA bundle on the manager's host to verify the BMC's certificate."),
  },
  { required: ["address"] },
);

export const BARE_METAL_MACHINE_KIND: KindDefinition = {
  kind: "BareMetalMachine",
  plural: "baremetalmachines",
  shortNames: ["bmm"],
  description:
    "One machine of the bare-metal inventory: which Node it is and the metadata that Node gets (providerID, addresses, zone, region, instance type, labels), and whether it is shut down, gone, or has a BMC to ask.",
  spec: obj("The machine, with the fields of an entry of the cloud-config's inventory.machines.", {
    name: str("The Node's name; default the object's name. Not with pattern.", { maxLength: 253 }),
    pattern: str("A glob (* and ?) over Node names, instead of one name: the traits apply to every match.", {
      maxLength: 253,
      pattern: "^[a-z0-9.*?-]+$",
    }),
    providerID: str("<scheme>://<id>; default baremetal://<node name>.", {
      maxLength: 512,
      pattern: "^[a-z][a-z0-9+.-]*://\\S+$",
    }),
    rack: str("A rack of the cloud-config's inventory.racks: its traits, and the rack label.", LABEL_VALUE),
    zone: str("topology.kubernetes.io/zone.", LABEL_VALUE),
    region: str("topology.kubernetes.io/region.", LABEL_VALUE),
    instanceType: str("node.kubernetes.io/instance-type.", LABEL_VALUE),
    labels: stringMap("Extra Node labels, written when the Node is initialised."),
    addresses: list(
      "The Node's addresses; empty: the kubelet's own.",
      obj(
        "One address.",
        {
          type: str("The address type.", { enum: ADDRESS_TYPES }),
          address: str("An IP address or DNS name.", { maxLength: 253 }),
        },
        { required: ["type", "address"] },
      ),
      { maxItems: 16 },
    ),
    decommissioned: bool("The machine is gone: its NotReady Node is deleted."),
    shutdown: bool("Powered off on purpose: the NotReady Node gets the shutdown taint. Not with bmc."),
    bmc: bmcSchema,
  }),
  specRules: [
    { rule: "!(has(self.name) && has(self.pattern))", message: "give name or pattern, not both" },
    {
      rule: "!has(self.pattern) || !(has(self.providerID) || has(self.addresses) || has(self.bmc))",
      message: "providerID, addresses and bmc belong to one machine; a pattern matches many nodes",
    },
    {
      rule: "!(has(self.bmc) && has(self.shutdown))",
      message: "the BMC says whether the machine is off: remove shutdown or bmc",
    },
  ],
  columns: [
    { name: "Node", type: "string", jsonPath: ".spec.name" },
    { name: "Pattern", type: "string", jsonPath: ".spec.pattern", priority: 1 },
    { name: "Rack", type: "string", jsonPath: ".spec.rack" },
    { name: "Zone", type: "string", jsonPath: ".spec.zone" },
    { name: "Instance Type", type: "string", jsonPath: ".spec.instanceType", priority: 1 },
    { name: "Shutdown", type: "boolean", jsonPath: ".spec.shutdown" },
    { name: "Decommissioned", type: "boolean", jsonPath: ".spec.decommissioned" },
    { name: "BMC", type: "string", jsonPath: ".spec.bmc.address", priority: 1 },
  ],
};

export const BARE_METAL_MACHINES = resourceOf(BARE_METAL_MACHINE_KIND);
export const bareMetalMachineCrd = (): ReturnType<typeof customResourceDefinition> =>
  customResourceDefinition(BARE_METAL_MACHINE_KIND);

/** Reading the objects; Warning events about unreadable ones go through the manager's events rule. */
export const BARE_METAL_MACHINE_RULES: readonly PolicyRule[] = [
  { apiGroups: [GROUP], resources: ["baremetalmachines"], verbs: ["get", "list", "watch"] },
];
