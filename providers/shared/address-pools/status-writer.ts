/**
 * Keeps each AddressPool's status current on the leader: after allocations and pool edits (at most one
 * pass per `delayMs`), only for objects whose shown status differs. A failed write is retried on the
 * next pass; a pool deleted meanwhile is skipped.
 */
import type { KubeApi } from "../../../src/kube/api.ts";
import { isNotFound } from "../../../src/kube/transport.ts";
import { errorMessage } from "../../../src/kube/worker.ts";
import type { Logger } from "../../../src/log/logger.ts";
import { rfc3339 } from "../../../src/util/clock.ts";
import { patchAddressPoolStatus } from "./api.ts";
import type { ReadPool } from "./cluster-pools.ts";
import { poolStatus, showsStatus } from "./pool-status.ts";

export interface StatusWriterDeps {
  readonly kube: KubeApi;
  readonly read: () => readonly ReadPool[];
  /** Every address some Service holds or still shows. */
  readonly used: () => Iterable<string>;
  readonly logger: Logger;
  readonly delayMs?: number;
  readonly now?: () => Date;
}

export interface StatusWriter {
  /** Asks for a pass soon. */
  schedule(): void;
  /** One pass now: resolves when every differing status was written (or failed). */
  flush(signal?: AbortSignal): Promise<void>;
  stop(): void;
}

export function createStatusWriter(deps: StatusWriterDeps): StatusWriter {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> = Promise.resolve();
  const timestamp = (): string => rfc3339((deps.now?.() ?? new Date()).getTime());

  async function writeOne(read: ReadPool, used: readonly string[], signal?: AbortSignal): Promise<void> {
    const status = poolStatus(read, used, timestamp());
    if (showsStatus(read, status)) return;
    try {
      await patchAddressPoolStatus(deps.kube, read.object.metadata.name, status, signal);
    } catch (error) {
      if (!isNotFound(error))
        deps.logger.warn(
          `cannot update the status of address pool ${read.object.metadata.name}: ${errorMessage(error)}`,
        );
    }
  }

  async function pass(signal?: AbortSignal): Promise<void> {
    const used = [...deps.used()];
    for (const read of deps.read()) await writeOne(read, used, signal);
  }

  const flush = (signal?: AbortSignal): Promise<void> => {
    running = running.then(() => pass(signal));
    return running;
  };

  return {
    schedule() {
      timer ??= setTimeout(() => {
        timer = undefined;
        void flush();
      }, deps.delayMs ?? 1000);
    },
    flush,
    stop() {
      clearTimeout(timer);
      timer = undefined;
    },
  };
}
