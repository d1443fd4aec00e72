/**
 * Address pools from AddressPool objects: every replica that leads reads the same objects, so replicas
 * never disagree about pools. Each object is read with the same rules as a cloud-config pool; an object
 * with a problem (an unreadable address, an overlap with an older pool) offers nothing and says why in
 * its `Valid` condition, while the others stay in force. Edits apply at once: `onChange` tells the
 * caller which pools changed.
 */
import type { KubeApi } from "../../../src/kube/api.ts";
import { Informer } from "../../../src/kube/informer.ts";
import type { KubeObject } from "../../../src/kube/objects.ts";
import type { Logger } from "../../../src/log/logger.ts";
import { isMapping, Problems } from "../config-reader.ts";
import { ADDRESS_POOLS } from "./crd.ts";
import { overlaps, readPoolFields } from "./pools-config.ts";
import type { Pool } from "./pools.ts";

export interface AddressPoolObject extends KubeObject {
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}

/** A pool object as read: the pool when usable, else why not. */
export interface ReadPool {
  readonly object: AddressPoolObject;
  readonly pool?: Pool;
  readonly problems: readonly string[];
}

const olderFirst = (a: KubeObject, b: KubeObject): number =>
  (a.metadata.creationTimestamp ?? "").localeCompare(b.metadata.creationTimestamp ?? "") ||
  a.metadata.name.localeCompare(b.metadata.name);

function readOne(object: AddressPoolObject): ReadPool {
  const p = new Problems();
  const spec = isMapping(object.spec) ? object.spec : {};
  const pool = readPoolFields(p, object.metadata.name, spec, "spec");
  return p.list.length > 0 ? { object, problems: p.list } : { object, pool, problems: [] };
}

/**
 * Every object read, oldest first; a pool overlapping an older usable one is refused, so adding a pool
 * never takes addresses away from the pools already in force.
 */
export function readPools(objects: readonly AddressPoolObject[]): ReadPool[] {
  const accepted: Pool[] = [];
  return [...objects].sort(olderFirst).map((object) => {
    const read = readOne(object);
    if (!read.pool) return read;
    const clash = overlaps([...accepted, read.pool]).filter((o) => o.b === read.pool);
    if (clash.length > 0) return { object, problems: clash.map((c) => `${c.line}, which is older`) };
    accepted.push(read.pool);
    return read;
  });
}

export interface ClusterPools {
  /** The usable pools now, oldest first. */
  pools(): readonly Pool[];
  /** Every object with its verdict, for status. */
  read(): readonly ReadPool[];
  readonly informer: Informer<AddressPoolObject>;
  /** Lists and watches until `signal` aborts. */
  run(signal: AbortSignal): Promise<void>;
}

export function createClusterPools(o: {
  kube: KubeApi;
  logger: Logger;
  onChange: (before: readonly Pool[], after: readonly Pool[]) => void;
}): ClusterPools {
  const informer = new Informer<AddressPoolObject>({ api: o.kube, resource: ADDRESS_POOLS, logger: o.logger });
  let current: ReadPool[] = [];
  let logged = new Map<string, string>();
  const recompute = (): void => {
    const before = current.flatMap((r) => r.pool ?? []);
    current = readPools(informer.list());
    const next = new Map(
      current.filter((r) => r.problems.length > 0).map((r) => [r.object.metadata.name, r.problems.join("; ")]),
    );
    for (const [name, why] of next)
      if (logged.get(name) !== why) o.logger.warn(`address pool ${name} offers no addresses: ${why}`);
    logged = next;
    o.onChange(
      before,
      current.flatMap((r) => r.pool ?? []),
    );
  };
  informer.addHandler({ add: recompute, update: recompute, delete: recompute });
  return {
    pools: () => current.flatMap((r) => r.pool ?? []),
    read: () => current,
    informer,
    run: (signal) => informer.run(signal),
  };
}
