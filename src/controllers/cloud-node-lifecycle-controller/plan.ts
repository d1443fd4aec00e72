/**
 * The lifecycle controller's decisions, pure: a Node's Ready status, what to do with a NotReady Node
 * given the cloud's answer, and the shutdown-taint patches.
 *
 * Beyond upstream, safe deletion: only a definite "does not exist" can delete a Node, never a failed,
 * throttled or timed-out lookup. With confirmation on, the first such answer is only remembered; the
 * Node is deleted when another one arrives at least one monitor period later, and any other outcome in
 * between (error, exists) forgets it. Upstream deletes on the first answer, and has deleted healthy
 * Nodes when a cloud cache or quota went wrong.
 */
import type { Answer, InstanceState } from "../../cloud/provider.ts";
import type { ConditionStatus, Node, Taint } from "../../kube/objects.ts";
import { hasTaint, taintsWith, taintsWithout } from "../../kube/taints.ts";
import { TAINT_SHUTDOWN } from "../../kube/well-known.ts";

export const SHUTDOWN_TAINT: Taint = { key: TAINT_SHUTDOWN, effect: "NoSchedule" };

/** The Ready condition's status; a Node without one counts as Unknown (upstream default). */
export function readyStatus(node: Node): ConditionStatus {
  return node.status?.conditions?.find((c) => c.type === "Ready")?.status ?? "Unknown";
}

/** Whether a monitor pass may act on the Node: NotReady (or Unknown), or carrying the shutdown taint. */
export function mayNeedAction(node: Node): boolean {
  return readyStatus(node) !== "True" || hasTaint(node, SHUTDOWN_TAINT.key, SHUTDOWN_TAINT.effect);
}

export type NotReadyAction = "none" | "awaitConfirmation" | "delete" | "addShutdownTaint";

export interface NotReadyDecision {
  readonly action: NotReadyAction;
  /** When the first unconfirmed "does not exist" arrived; undefined: nothing to remember. */
  readonly missingSince: number | undefined;
}

export interface DeletionPolicy {
  /** `--node-deletion-confirmation`. */
  readonly confirm: boolean;
  /** `--node-monitor-period`: the least time between the two agreeing answers. */
  readonly periodMs: number;
}

/** One NotReady Node at one moment: the cloud's answer and what was remembered about it. */
export interface NotReadyObservation {
  readonly node: Node;
  readonly answer: Answer<InstanceState>;
  readonly missingSince: number | undefined;
  readonly now: number;
}

export function decideNotReady(
  { node, answer, missingSince, now }: NotReadyObservation,
  policy: DeletionPolicy,
): NotReadyDecision {
  if ("error" in answer) return { action: "none", missingSince: undefined };
  const state = answer.value;
  if (state.exists) {
    const taint = state.shutdown && !hasTaint(node, SHUTDOWN_TAINT.key, SHUTDOWN_TAINT.effect);
    return { action: taint ? "addShutdownTaint" : "none", missingSince: undefined };
  }
  if (!policy.confirm) return { action: "delete", missingSince: undefined };
  if (missingSince === undefined) return { action: "awaitConfirmation", missingSince: now };
  if (now - missingSince >= policy.periodMs) return { action: "delete", missingSince: undefined };
  return { action: "awaitConfirmation", missingSince };
}

/**
 * Adds the shutdown taint (taints are replaced whole); undefined when the Node already has it or is Ready
 * again by the time it is written.
 */
export function addShutdownTaintPatch(node: Node): object | undefined {
  if (readyStatus(node) === "True" || hasTaint(node, SHUTDOWN_TAINT.key, SHUTDOWN_TAINT.effect)) return undefined;
  return { spec: { taints: taintsWith(node, SHUTDOWN_TAINT) } };
}

/**
 * Removes the shutdown taint, only from a Node that is Ready again (upstream: not when the instance
 * powers on). Undefined when there is nothing to remove or the Node is not Ready.
 */
export function removeShutdownTaintPatch(node: Node): object | undefined {
  if (readyStatus(node) !== "True" || !hasTaint(node, SHUTDOWN_TAINT.key, SHUTDOWN_TAINT.effect)) return undefined;
  return { spec: { taints: taintsWithout(node, SHUTDOWN_TAINT.key, SHUTDOWN_TAINT.effect) } };
}
