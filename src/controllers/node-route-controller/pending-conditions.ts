/**
 * NetworkUnavailable conditions this controller wrote that the watch has not shown yet. A reconcile that
 * starts before a write's watch event arrives sees the old condition and would write the same one again:
 * in a burst of 100 new Nodes on a busy API server, 91 got their condition twice. A write is pending
 * until the informer delivers its resourceVersion, or for one reconciliation period at most (a relisted
 * cache may never deliver that exact version).
 */
import type { Node } from "../../kube/objects.ts";
import type { Clock } from "../../util/clock.ts";
import type { NetworkCondition } from "./plan.ts";

interface Pending {
  readonly uid: string | undefined;
  readonly resourceVersion: string;
  readonly status: NetworkCondition["status"];
  readonly reason: NetworkCondition["reason"];
  readonly until: number;
}

export class PendingConditions {
  private readonly byNode = new Map<string, Pending>();

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs: number,
  ) {}

  get size(): number {
    return this.byNode.size;
  }

  wrote(node: Node, resourceVersion: string, condition: NetworkCondition): void {
    const { status, reason } = condition;
    const until = this.clock.now() + this.ttlMs;
    this.byNode.set(node.metadata.name, { uid: node.metadata.uid, resourceVersion, status, reason, until });
  }

  /** The informer delivered `node`: a write at its version is no longer pending. */
  seen(node: Node): void {
    const pending = this.byNode.get(node.metadata.name);
    if (pending && (pending.resourceVersion === node.metadata.resourceVersion || pending.uid !== node.metadata.uid))
      this.byNode.delete(node.metadata.name);
  }

  forget(node: Node): void {
    this.byNode.delete(node.metadata.name);
  }

  /** Whether `condition` was written to this Node and its watch event is still on the way. */
  covers(node: Node, condition: NetworkCondition): boolean {
    const pending = this.byNode.get(node.metadata.name);
    if (!pending) return false;
    if (pending.uid !== node.metadata.uid || pending.until <= this.clock.now()) {
      this.byNode.delete(node.metadata.name);
      return false;
    }
    return pending.status === condition.status && pending.reason === condition.reason;
  }
}
