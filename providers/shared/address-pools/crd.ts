/**
 * The AddressPool custom resource: one address pool per object, cluster-scoped, the same fields as a
 * pool in a cloud-config file (pools-config.ts reads both). Its status shows how many addresses are
 * used and free, and a `Valid` condition (False for a pool that overlaps one in force or holds an
 * unreadable address: such a pool offers nothing, or, for an edit, keeps its last valid spec, which the
 * status records as `appliedSpec` so that every leader keeps the same one).
 */
import type { PolicyRule } from "../../../src/kube/objects.ts";
import {
  bool,
  conditionsSchema,
  customResourceDefinition,
  GROUP,
  int,
  labelSelectorSchema,
  list,
  obj,
  resourceOf,
  str,
  type KindDefinition,
} from "../crd.ts";

/** A CIDR, a range `first-last` or one address; exact checks happen when the pool is read. */
const ADDRESS_PATTERN = "^[0-9a-fA-F:.]+(/[0-9]{1,3})?$|^[0-9a-fA-F:.]+ *- *[0-9a-fA-F:.]+$";

export const ADDRESS_POOL_KIND: KindDefinition = {
  kind: "AddressPool",
  plural: "addresspools",
  shortNames: ["addrpool"],
  description:
    "A pool of load-balancer addresses (IPv4, IPv6 or both) that Services of type LoadBalancer get addresses from.",
  spec: obj(
    "Which addresses, for whom, in which order.",
    {
      addresses: list(
        "CIDRs (10.0.0.0/24), ranges (10.0.0.10-10.0.0.20) and single addresses; pools may not overlap.",
        str("One CIDR, range or address.", { maxLength: 100, pattern: ADDRESS_PATTERN }),
        { minItems: 1, maxItems: 1024 },
      ),
      namespaces: list(
        "Namespaces the pool serves; with namespaceSelectors also empty: every namespace.",
        str("A namespace.", { maxLength: 63, pattern: "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$" }),
        { maxItems: 1024 },
      ),
      namespaceSelectors: list("Namespaces whose labels match any of these are served too.", labelSelectorSchema, {
        maxItems: 32,
      }),
      serviceSelectors: list(
        "When set, only Services whose labels match one of these get addresses from the pool.",
        labelSelectorSchema,
        { maxItems: 32 },
      ),
      priority: int("Lower is tried first; pools without a priority come last.", { minimum: 0 }),
      autoAssign: bool(
        "False: only Services that ask for this pool (annotation) or one of its addresses get addresses from it.",
        true,
      ),
      avoidBuggyIPs: bool("Never hand out IPv4 addresses ending in .0 or .255.", false),
      allocationOrder: str("Which end new addresses come from.", {
        enum: ["Ascending", "Descending"],
        default: "Ascending",
      }),
      allowAddressMoves: bool(
        "True: a Service whose address this pool no longer offers it (the pool shrank, or no longer serves it) moves to a new address, with a Warning event. False: it keeps the address, flagged.",
        false,
      ),
      implicitSharing: bool(
        "Services of this pool share an IPv4 address without the sharing annotation when their ports differ (kube-vip's allow-share).",
        false,
      ),
    },
    { required: ["addresses"] },
  ),
  status: obj("What the pool holds, as the leading manager sees it.", {
    observedGeneration: int("The spec generation this status is for.", { minimum: 0 }),
    used: int("Addresses held by Services.", { minimum: 0 }),
    free: str("Addresses left to hand out, as a decimal number (IPv6 pools exceed 64 bits)."),
    usedIPv4: int("IPv4 addresses held by Services.", { minimum: 0 }),
    freeIPv4: int("IPv4 addresses left.", { minimum: 0 }),
    usedIPv6: int("IPv6 addresses held by Services.", { minimum: 0 }),
    freeIPv6: str("IPv6 addresses left, as a decimal number."),
    appliedSpec: str(
      "The spec in force, as JSON: the last valid one while an edit cannot apply (Valid=False, EditNotApplied); every leader keeps it.",
    ),
    conditions: conditionsSchema,
  }),
  columns: [
    { name: "Addresses", type: "string", jsonPath: ".spec.addresses" },
    { name: "Auto Assign", type: "boolean", jsonPath: ".spec.autoAssign" },
    { name: "Priority", type: "integer", jsonPath: ".spec.priority", priority: 1 },
    { name: "Namespaces", type: "string", jsonPath: ".spec.namespaces", priority: 1 },
    { name: "Used", type: "integer", jsonPath: ".status.used" },
    { name: "Free", type: "string", jsonPath: ".status.free" },
    { name: "Valid", type: "string", jsonPath: '.status.conditions[?(@.type=="Valid")].status' },
  ],
};

export const ADDRESS_POOLS = resourceOf(ADDRESS_POOL_KIND);
export const addressPoolCrd = (): ReturnType<typeof customResourceDefinition> =>
  customResourceDefinition(ADDRESS_POOL_KIND);

/** What a pool-backed provider needs: read AddressPool objects, write their status, follow Namespace labels. */
export const ADDRESS_POOL_RULES: readonly PolicyRule[] = [
  { apiGroups: [GROUP], resources: ["addresspools"], verbs: ["get", "list", "watch"] },
  { apiGroups: [GROUP], resources: ["addresspools/status"], verbs: ["patch"] },
  // Pools' namespaceSelectors match Namespace labels: the manager's Namespace cache, started only once a
  // pool selects on them (namespace-labels.ts), lists and watches; nothing reads one Namespace alone.
  { apiGroups: [""], resources: ["namespaces"], verbs: ["list", "watch"] },
];
