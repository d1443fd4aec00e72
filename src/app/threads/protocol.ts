/** Messages between the manager (main thread) and its controller threads. */
import type { ProviderInit } from "../../cloud/provider.ts";
import type { ProviderConfig } from "../../cloud/registry.ts";
import type { Config } from "../../config/config.ts";
import type { ConnectionData } from "../../kube/connection.ts";
import type { CachedResource } from "../../kube/informers.ts";
import type { Shard } from "../../kube/shard.ts";
import type { SharedBucket } from "../../kube/token-bucket.ts";
import type { SharedSlots } from "../../util/shared-semaphore.ts";
import type { MetricsSnapshot } from "../../metrics/hub.ts";
import type { ControllerName } from "../../names/controllers.ts";

/** What a thread is started with: the main thread's frozen configuration (structured clone) and its share. */
export interface ThreadStart {
  readonly type: "start";
  readonly config: Config;
  readonly providerConfig: ProviderConfig;
  readonly thread: number;
  readonly controllers: readonly ControllerName[];
  /** The thread's share of the keys of its per-key controllers. */
  readonly shard: Shard;
  /** Controllers that run on this thread alone and take every key. */
  readonly whole: readonly ControllerName[];
  readonly bucket: SharedBucket;
  /** The requests on the wire at once, one limit for every controller thread. */
  readonly wire: SharedSlots;
  /** The main thread's API server connection; the thread asks it for the Authorization header. */
  readonly connection: ConnectionData;
  /** Who leads (leader election on): the provider compares its configuration with the last leader's. */
  readonly replica?: ProviderInit["replica"];
}

export type ToWorker =
  /** Run these controllers with the manager's configuration, drawing from the manager's token bucket. */
  | ThreadStart
  /** Stop taking work, finish in-flight syncs, then report `exited`. */
  | { readonly type: "stop" }
  | { readonly type: "metrics"; readonly id: number }
  /** The answer to the thread's `authorization` request: the header, or why there is none. */
  | { readonly type: "authorization"; readonly id: number; readonly value?: string; readonly error?: string }
  /** Changes of the main thread's caches for the thread's mirror: `MirrorOp[]` as JSON (`encodeBatches`). */
  | { readonly type: "informers"; readonly ops: string };

export type FromWorker =
  /** Health of the thread's checks (null: healthy), pushed when it changes (checked every second). */
  | { readonly type: "status"; readonly checks: Readonly<Record<string, string | null>> }
  | { readonly type: "metrics"; readonly id: number; readonly metrics: MetricsSnapshot }
  /** The thread's controllers read these caches: the main thread runs their informers (once for all threads). */
  | { readonly type: "watch"; readonly resources: readonly CachedResource[] }
  /** The Authorization header the main thread's connection sends now (credentials rotate). */
  | { readonly type: "authorization"; readonly id: number }
  /** 0: stopped as asked; 1: a controller crashed; 2: a controller found its flags unusable. */
  | { readonly type: "exited"; readonly code: 0 | 1 | 2; readonly error?: string };
