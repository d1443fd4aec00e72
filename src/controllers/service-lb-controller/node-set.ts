/**
 * The Nodes that may back load balancers, filtered once per change of the Node cache: while it follows
 * the cache, every Ensure and every node-sync pass between two Node events gets the same array. The
 * ServiceCache then knows its identity already, and a provider may key its per-list work on it (the fake
 * cloud sorts the names once), so 2,000 Services on 20,000 Nodes cost one filter per change, not one per
 * Service.
 */
import type { InformerView } from "../../kube/informer-cache.ts";
import type { Node } from "../../kube/objects.ts";
import { loadBalancerNodes } from "./predicates.ts";

export class LoadBalancerNodeSet {
  readonly #nodes: InformerView<Node>;
  #current: readonly Node[] | undefined;
  #following = false;

  constructor(nodes: InformerView<Node>) {
    this.#nodes = nodes;
  }

  /** The Nodes that may back load balancers now; while following, the same array until a Node changes. */
  readonly list = (): readonly Node[] => {
    if (!this.#following) return loadBalancerNodes(this.#nodes.list());
    return (this.#current ??= loadBalancerNodes(this.#nodes.list()));
  };

  /** Follows the Node cache until the returned function is called. */
  follow(): () => void {
    const stale = (): void => {
      this.#current = undefined;
    };
    const remove = this.#nodes.addHandler({ add: stale, update: stale, delete: stale });
    this.#following = true;
    return () => {
      remove();
      this.#following = false;
      this.#current = undefined;
    };
  }
}
