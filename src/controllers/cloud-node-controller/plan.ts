/**
 * The node controller's decisions, pure: what initialising a Node with its instance metadata changes,
 * which addresses the Node should carry, and which beta labels still need their GA twin. Each returns a
 * merge-patch body (or nothing to write), and names the fields it read: `sync.ts` sends the body as a JSON
 * patch that tests those fields (`kube/json-patch.ts`).
 */
import type { InstanceMetadata } from "../../cloud/provider.ts";
import { pointer } from "../../kube/json-patch.ts";
import type { Node, NodeAddress, Taint } from "../../kube/objects.ts";
import { hasTaint, taintsWithout } from "../../kube/taints.ts";
import {
  ANNOTATION_PROVIDED_NODE_IP,
  BETA_TO_GA_LABELS,
  LABEL_INSTANCE_TYPE,
  LABEL_INSTANCE_TYPE_BETA,
  LABEL_REGION,
  LABEL_REGION_BETA,
  LABEL_ZONE,
  LABEL_ZONE_BETA,
  TAINT_UNINITIALIZED,
} from "../../kube/well-known.ts";
import { applyProvidedNodeIP, type Parsed } from "./node-ip.ts";

/** The Node write that initialises it: labels merged in, providerID set, taints replaced whole. */
export interface InitPatch {
  readonly metadata?: { readonly labels: Readonly<Record<string, string>> };
  readonly spec: { readonly providerID?: string; readonly taints: readonly Taint[] };
}

export interface InitPlan {
  readonly patch: InitPatch;
  /** Additional labels that were left out, one line each, for the log. */
  readonly discarded: readonly string[];
}

/** Keys the cloud may not set through `additionalLabels` (upstream `isKubernetesLabel`). */
const KUBERNETES_LABEL = /(^|\.)(kubernetes|k8s)\.io\//;

const TAINTS = pointer("spec", "taints");
const PROVIDED_NODE_IP = pointer("metadata", "annotations", ANNOTATION_PROVIDED_NODE_IP);

/** What `planInitialization` reads of a Node: its write holds only while these are unchanged. */
export const INIT_READS: readonly string[] = [
  TAINTS,
  pointer("spec", "providerID"),
  pointer("metadata", "labels"),
  PROVIDED_NODE_IP,
];

/**
 * What `planAddresses` reads of a Node, but for the uninitialized taint: right after initialising, our
 * view of the Node holds `taints: []`, which the API server stores as no taints at all, so a test of it
 * would fail every time.
 */
export const ADDRESS_READS: readonly string[] = [pointer("status", "addresses"), PROVIDED_NODE_IP];

/** What `planLabelReconcile` reads of a Node. */
export const LABEL_READS: readonly string[] = [pointer("metadata", "labels")];

export function needsInitialization(node: Node): boolean {
  return hasTaint(node, TAINT_UNINITIALIZED);
}

/**
 * Upstream `getNodeModifiersFromCloudProvider`: refuses (taint kept) when no providerID is known or the
 * provided node IP is not among the cloud's addresses; otherwise sets providerID (only if unset), the
 * instance-type / zone / region labels under GA and beta keys, the filtered additional labels, and removes
 * every uninitialized taint.
 */
export function planInitialization(node: Node, metadata: InstanceMetadata): Parsed<InitPlan> {
  const name = node.metadata.name;
  const current = node.spec?.providerID ?? "";
  if (metadata.providerID === "" && current === "")
    return { ok: false, error: `cloud provider does not set node provider ID for node ${name}` };
  const addresses = applyProvidedNodeIP(node, metadata.nodeAddresses);
  if (!addresses.ok)
    return { ok: false, error: `provided node ip for node ${JSON.stringify(name)} is not valid: ${addresses.error}` };
  const { labels, discarded } = initLabels(node, metadata);
  const spec = {
    ...(current === "" ? { providerID: metadata.providerID } : {}),
    taints: taintsWithout(node, TAINT_UNINITIALIZED),
  };
  const patch: InitPatch = Object.keys(labels).length > 0 ? { metadata: { labels }, spec } : { spec };
  return { ok: true, value: { patch, discarded } };
}

function initLabels(node: Node, metadata: InstanceMetadata): { labels: Record<string, string>; discarded: string[] } {
  const labels: Record<string, string> = {};
  const pairs: [string, string, string][] = [
    [metadata.instanceType, LABEL_INSTANCE_TYPE, LABEL_INSTANCE_TYPE_BETA],
    [metadata.zone, LABEL_ZONE, LABEL_ZONE_BETA],
    [metadata.region, LABEL_REGION, LABEL_REGION_BETA],
  ];
  for (const [value, ga, beta] of pairs) {
    if (value !== "") labels[ga] = labels[beta] = value;
  }
  const discarded = addAdditionalLabels(labels, node.metadata.labels ?? {}, metadata.additionalLabels ?? {});
  return { labels, discarded };
}

/** Adds the cloud's extra labels to `labels`; returns why each left-out one was left out. */
function addAdditionalLabels(
  labels: Record<string, string>,
  existing: Readonly<Record<string, string>>,
  extra: Readonly<Record<string, string>>,
): string[] {
  const discarded: string[] = [];
  for (const [key, value] of Object.entries(extra)) {
    const has = existing[key] ?? labels[key];
    if (KUBERNETES_LABEL.test(key)) discarded.push(`discarding node label ${key} with kubernetes prefix`);
    else if (has === undefined) labels[key] = value;
    else if (has !== value)
      discarded.push(`discarding node label ${key} with value ${value}, node already has value ${has}`);
  }
  return discarded;
}

/**
 * Upstream `updateNodeAddress`: the addresses to write to `status.addresses`, or `undefined` when nothing
 * changes. The cloud's list (plus the Node's own Hostname entries when the cloud has none), filtered by
 * the provided node IP. Zero cloud addresses and initialising Nodes are left alone. Deliberate change:
 * any difference in order or content counts as a change (upstream compares one address per type, which
 * misses reordered or duplicate-type lists).
 */
export function planAddresses(node: Node, metadata: InstanceMetadata): Parsed<NodeAddress[] | undefined> {
  if (needsInitialization(node) || metadata.nodeAddresses.length === 0) return { ok: true, value: undefined };
  const cloud = [...metadata.nodeAddresses];
  const existing = node.status?.addresses ?? [];
  if (!cloud.some((a) => a.type === "Hostname")) cloud.push(...existing.filter((a) => a.type === "Hostname"));
  const wanted = applyProvidedNodeIP(node, cloud);
  if (!wanted.ok) return wanted;
  return { ok: true, value: sameAddresses(existing, wanted.value) ? undefined : wanted.value };
}

function sameAddresses(a: readonly NodeAddress[], b: readonly NodeAddress[]): boolean {
  return a.length === b.length && a.every((x, i) => x.type === b[i]?.type && x.address === b[i]?.address);
}

/**
 * Upstream `reconcileNodeLabels` on initialised Nodes: where a beta label exists and its GA twin is missing
 * or differs, the GA label takes the beta value. `undefined` when nothing is to change.
 */
export function planLabelReconcile(node: Node): Record<string, string> | undefined {
  const labels = node.metadata.labels ?? {};
  const changes: Record<string, string> = {};
  for (const [beta, ga] of BETA_TO_GA_LABELS) {
    const value = labels[beta];
    if (value !== undefined && labels[ga] !== value) changes[ga] = value;
  }
  return Object.keys(changes).length > 0 ? changes : undefined;
}
