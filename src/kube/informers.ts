/**
 * One informer per resource type, shared by every controller that asks for it, so the manager opens one
 * Node watch and one Service watch however many controllers run.
 */
import type { Logger } from "../log/logger.ts";
import type { Clock } from "../util/clock.ts";
import { NODES, SERVICES, type KubeApi } from "./api.ts";
import { Informer } from "./informer.ts";
import type { Node, Service } from "./objects.ts";
import { trimNode, trimService } from "./transforms.ts";

export interface SharedInformers {
  nodes(): Informer<Node>;
  services(): Informer<Service>;
  /** Runs every informer requested so far until `signal` aborts. */
  run(signal: AbortSignal): Promise<void>;
  /** Resolves true once every requested informer has listed, false if `signal` aborts first. */
  waitForSync(signal: AbortSignal): Promise<boolean>;
  readonly synced: boolean;
  /** "N node(s), M service(s)" for the informers in use. */
  describe(): string;
}

export function createSharedInformers(deps: { api: KubeApi; logger: Logger; clock?: Clock }): SharedInformers {
  let nodes: Informer<Node> | undefined;
  let services: Informer<Service> | undefined;
  const all = (): Pick<Informer<Node>, "run" | "waitForSync" | "synced">[] =>
    [nodes, services].filter((i) => i !== undefined);
  const logger = deps.logger.withTag("informers");
  return {
    nodes: () =>
      (nodes ??= new Informer<Node>({
        api: deps.api,
        resource: NODES,
        logger,
        transform: trimNode,
        clock: deps.clock,
      })),
    services: () =>
      (services ??= new Informer<Service>({
        api: deps.api,
        resource: SERVICES,
        logger,
        transform: trimService,
        clock: deps.clock,
      })),
    async run(signal) {
      await Promise.all(all().map((i) => i.run(signal)));
    },
    async waitForSync(signal) {
      const results = await Promise.all(all().map((i) => i.waitForSync(signal)));
      return results.every(Boolean);
    },
    get synced() {
      return all().every((i) => i.synced);
    },
    describe() {
      const parts = [nodes && `${nodes.size} node(s)`, services && `${services.size} service(s)`].filter(Boolean);
      return parts.length > 0 ? parts.join(", ") : "no informers in use";
    },
  };
}
