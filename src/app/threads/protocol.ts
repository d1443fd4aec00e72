/** Messages between the manager (main thread) and its controller threads. */
import type { ProviderInit } from "../../cloud/provider.ts";
import type { ProviderConfig } from "../../cloud/registry.ts";
import type { Config } from "../../config/config.ts";
import type { CachedResource } from "../../kube/informers.ts";
import type { Shard } from "../../kube/shard.ts";
import type { SharedBucket } from "../../kube/token-bucket.ts";
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
  /** Who leads (leader election on): the provider compares its configuration with the last leader's. */
  readonly replica?: ProviderInit["replica"];
}

export type ToWorker =
  /** Run these controllers with the manager's configuration, drawing from the manager's token bucket. */
  | ThreadStart
  /** Stop taking work, finish in-flight syncs, then report `exited`. */
  | { readonly type: "stop" }
  | { readonly type: "metrics"; readonly id: number }
  /** Changes of the main thread's caches for the thread's mirror: `MirrorOp[]` as JSON, encoded once for all. */
  | { readonly type: "informers"; readonly ops: string };

export type FromWorker =
  /** Health of the thread's checks (null: healthy), pushed every second. */
  | { readonly type: "status"; readonly checks: Readonly<Record<string, string | null>> }
  | { readonly type: "metrics"; readonly id: number; readonly metrics: MetricsSnapshot }
  /** The thread's controllers read these caches: the main thread runs their informers (once for all threads). */
  | { readonly type: "watch"; readonly resources: readonly CachedResource[] }
  /** 0: stopped as asked; 1: a controller crashed; 2: a controller found its flags unusable. */
  | { readonly type: "exited"; readonly code: 0 | 1 | 2; readonly error?: string };
