/**
 * One informer per resource type, shared by every controller that asks for it, so the manager opens one
 * Node watch and one Service watch however many controllers run. With controller threads only the main
 * thread lists and watches; each thread reads a mirror of these caches (informer-mirror.ts).
 */
import type { Logger } from "../log/logger.ts";
import type { Clock } from "../util/clock.ts";
import { NODES, SERVICES, type KubeApi } from "./api.ts";
import type { InformerView } from "./informer-cache.ts";
import { Informer } from "./informer.ts";
import type { Node, Service } from "./objects.ts";
import { trimNode, trimService } from "./transforms.ts";
import { NODE_FINGERPRINTS } from "./heartbeats.ts";

/** The resources the manager caches, by plural. */
export type CachedResource = "nodes" | "services";

/** What controllers see: the same whether the informers run here or in the main thread (a mirror). */
export interface SharedInformers {
  nodes(): InformerView<Node>;
  services(): InformerView<Service>;
  /** Runs every informer requested so far, and each one requested later, until `signal` aborts. */
  run(signal: AbortSignal): Promise<void>;
  /** Resolves true once every requested informer has listed, false if `signal` aborts first. */
  waitForSync(signal: AbortSignal): Promise<boolean>;
  readonly synced: boolean;
  /** "N node(s), M service(s)" for the informers in use. */
  describe(): string;
}

export interface InformersDeps {
  readonly api: KubeApi;
  readonly logger: Logger;
  readonly clock?: Clock;
}

export function createSharedInformers(deps: InformersDeps): SharedInformers {
  let nodes: Informer<Node> | undefined;
  let services: Informer<Service> | undefined;
  const all = (): InformerView<unknown>[] => [nodes, services].filter((i) => i !== undefined);
  const logger = deps.logger.withTag("informers");
  let running: { signal: AbortSignal; runs: Promise<void>[] } | undefined;
  const started = <T extends Informer<Node> | Informer<Service>>(informer: T): T => {
    if (running) running.runs.push(informer.run(running.signal));
    return informer;
  };
  const options = { api: deps.api, logger, clock: deps.clock };
  return {
    nodes: () =>
      (nodes ??= started(
        new Informer<Node>({ ...options, resource: NODES, transform: trimNode, fingerprint: NODE_FINGERPRINTS }),
      )),
    services: () =>
      (services ??= started(new Informer<Service>({ ...options, resource: SERVICES, transform: trimService }))),
    async run(signal) {
      running = { signal, runs: [nodes, services].filter((i) => i !== undefined).map((i) => i.run(signal)) };
      await new Promise<void>((resolve) =>
        signal.aborted ? resolve() : signal.addEventListener("abort", () => resolve(), { once: true }),
      );
      await Promise.all(running.runs);
    },
    waitForSync: (signal) => waitForAll(all(), signal),
    get synced() {
      return all().every((i) => i.synced);
    },
    describe: () => describeCaches(nodes, services),
  };
}

export async function waitForAll(informers: readonly InformerView<unknown>[], signal: AbortSignal): Promise<boolean> {
  const results = await Promise.all(informers.map((i) => i.waitForSync(signal)));
  return results.every(Boolean);
}

export function describeCaches(nodes?: InformerView<Node>, services?: InformerView<Service>): string {
  const parts = [nodes && `${nodes.size} node(s)`, services && `${services.size} service(s)`].filter(Boolean);
  return parts.length > 0 ? parts.join(", ") : "no informers in use";
}
