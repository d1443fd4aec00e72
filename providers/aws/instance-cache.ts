/**
 * One short-lived view of EC2 instances shared by the node, lifecycle, route and load-balancer paths.
 * Lookups for many keys cost one `DescribeInstances` per chunk (filter values, so an unknown ID is an
 * absent answer instead of failing the whole call as `InstanceIds` would); pages are followed through
 * `NextToken`. Answers, including "not found", are reused for `maxAgeMs`; a key already being fetched
 * is awaited, not fetched twice. A failed call is never cached.
 */
import type { Filter } from "@aws-sdk/client-ec2";
import type { AwsApi } from "./api.ts";
import { toEc2Instance, type Ec2Instance } from "./ec2-instance.ts";
import { taggedForCluster, type ClusterTags } from "./tags.ts";

/** A lookup answer: the instance, undefined when there is none, or the error for this key alone. */
export type Found = Ec2Instance | undefined | Error;

interface Entry {
  readonly at: number;
  readonly found: Found;
}

export interface InstanceCacheOptions {
  readonly maxAgeMs?: number;
  /** Values per filter in one call (AWS allows 200; upstream uses 150). */
  readonly chunkSize?: number;
  readonly now?: () => number;
}

/** Upstream's by-name lookup excludes terminated instances. */
const LIVE_STATES = ["pending", "running", "shutting-down", "stopping", "stopped"];

export class InstanceCache {
  readonly #api: AwsApi;
  readonly #cluster: ClusterTags;
  readonly #maxAgeMs: number;
  readonly #chunkSize: number;
  readonly #now: () => number;
  readonly #entries = new Map<string, Entry>();
  readonly #inflight = new Map<string, Promise<void>>();

  constructor(api: AwsApi, cluster: ClusterTags, options: InstanceCacheOptions = {}) {
    this.#api = api;
    this.#cluster = cluster;
    this.#maxAgeMs = options.maxAgeMs ?? 5_000;
    this.#chunkSize = options.chunkSize ?? 150;
    this.#now = options.now ?? Date.now;
  }

  /** Instances by ID, any state (terminated ones while AWS still lists them). */
  byIds(ids: readonly string[], signal?: AbortSignal): Promise<Map<string, Found>> {
    return this.#lookup("id", ids, (chunk) => this.#fetchByIds(chunk, signal));
  }

  /** Instances by private DNS name: not terminated, tagged for this cluster, an error if several match. */
  byPrivateDnsNames(names: readonly string[], signal?: AbortSignal): Promise<Map<string, Found>> {
    return this.#lookup("dns", names, (chunk) => this.#fetchByNames(chunk, signal));
  }

  /** Forget what is known about these instances (after changing them). */
  invalidate(ids: readonly string[]): void {
    for (const id of ids) this.#entries.delete(`id:${id}`);
  }

  async #lookup(
    kind: string,
    keys: readonly string[],
    fetch: (chunk: string[]) => Promise<Map<string, Found>>,
  ): Promise<Map<string, Found>> {
    const unique = [...new Set(keys)];
    const stale = unique.filter((k) => !this.#fresh(`${kind}:${k}`) && !this.#inflight.has(`${kind}:${k}`));
    for (let i = 0; i < stale.length; i += this.#chunkSize) {
      const chunk = stale.slice(i, i + this.#chunkSize);
      const done = fetch(chunk).then((found) => {
        const at = this.#now();
        for (const key of chunk) this.#entries.set(`${kind}:${key}`, { at, found: found.get(key) });
      });
      const settled = done.finally(() => {
        for (const key of chunk) this.#inflight.delete(`${kind}:${key}`);
      });
      for (const key of chunk) this.#inflight.set(`${kind}:${key}`, settled);
    }
    await Promise.all(unique.flatMap((k) => this.#inflight.get(`${kind}:${k}`) ?? []));
    return new Map(unique.map((k) => [k, this.#entries.get(`${kind}:${k}`)?.found]));
  }

  #fresh(key: string): boolean {
    const entry = this.#entries.get(key);
    return entry !== undefined && this.#now() - entry.at < this.#maxAgeMs;
  }

  async #describe(filters: Filter[], signal?: AbortSignal): Promise<Ec2Instance[]> {
    const out: Ec2Instance[] = [];
    let token: string | undefined;
    do {
      const page = await this.#api.ec2.describeInstances({ Filters: filters, NextToken: token }, signal);
      for (const r of page.Reservations ?? []) for (const i of r.Instances ?? []) out.push(toEc2Instance(i));
      token = page.NextToken || undefined;
    } while (token);
    return out;
  }

  async #fetchByIds(ids: string[], signal?: AbortSignal): Promise<Map<string, Found>> {
    const found = new Map<string, Found>();
    for (const i of await this.#describe([{ Name: "instance-id", Values: ids }], signal)) found.set(i.id, i);
    return found;
  }

  async #fetchByNames(names: string[], signal?: AbortSignal): Promise<Map<string, Found>> {
    const filters = [
      { Name: "private-dns-name", Values: names },
      { Name: "instance-state-name", Values: LIVE_STATES },
    ];
    const matches = new Map<string, Ec2Instance[]>();
    for (const i of await this.#describe(filters, signal)) {
      if (taggedForCluster(i.tags, this.#cluster))
        matches.set(i.privateDnsName, [...(matches.get(i.privateDnsName) ?? []), i]);
    }
    const found = new Map<string, Found>();
    for (const [name, list] of matches) {
      found.set(
        name,
        list.length === 1
          ? list[0]
          : new Error(
              `${list.length} instances of this cluster have private DNS name ${name}: ${list.map((i) => i.id).join(", ")}`,
            ),
      );
    }
    return found;
  }
}
