/**
 * Node taint helpers (upstream `taints.MatchTaint` semantics: a taint is identified by key and effect).
 * Pure; they return new lists and never touch the cached Node.
 */
import type { Node, Taint, TaintEffect } from "./objects.ts";

const matches = (taint: Taint, key: string, effect?: TaintEffect): boolean =>
  taint.key === key && (effect === undefined || taint.effect === effect);

/** True when the node carries a taint with `key` (and `effect`, when given). */
export function hasTaint(node: Node, key: string, effect?: TaintEffect): boolean {
  return (node.spec?.taints ?? []).some((t) => matches(t, key, effect));
}

/** The node's taints without those with `key` (and `effect`, when given). */
export function taintsWithout(node: Node, key: string, effect?: TaintEffect): Taint[] {
  return (node.spec?.taints ?? []).filter((t) => !matches(t, key, effect));
}

/** The node's taints with `taint` added, or replacing the one with the same key and effect. */
export function taintsWith(node: Node, taint: Taint): Taint[] {
  return [...taintsWithout(node, taint.key, taint.effect), taint];
}
