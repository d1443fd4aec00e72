/**
 * Address pools from AddressPool objects: every replica that leads reads the same objects, so replicas
 * never disagree about pools. Each object is read with the same rules as a cloud-config pool; an object
 * with a problem (an unreadable address, an overlap with a pool in force) offers nothing and says why in
 * its `Valid` condition, while the others stay in force; an edit with such a problem leaves the spec in
 * force before it. That spec is read from the object's status (`appliedSpec`, written with the condition),
 * never from memory, so a restarted or new leader keeps exactly the pools the running one keeps. Edits
 * apply at once: `onChange` tells the caller which pools changed.
 */
import type { KubeApi } from "../../../src/kube/api.ts";
import { Informer } from "../../../src/kube/informer.ts";
import type { Condition, KubeObject } from "../../../src/kube/objects.ts";
import type { Logger } from "../../../src/log/logger.ts";
import { isMapping, Problems } from "../config-reader.ts";
import { ADDRESS_POOLS } from "./crd.ts";
import { readPoolFields } from "./pools-config.ts";
import { poolKey, rangesOverlap, type Pool } from "./pools.ts";

export interface AddressPoolObject extends KubeObject {
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}

/** A pool object as read: the pool when usable, else why not. */
export interface ReadPool {
  readonly object: AddressPoolObject;
  readonly pool?: Pool;
  /** The spec `pool` was read from, as JSON: what the status records as `appliedSpec`. */
  readonly applied?: string;
  readonly problems: readonly string[];
}

/** Whether the pool's status shows it in force (Valid=True), and for its current generation. */
function shownInForce(o: AddressPoolObject): { shown: boolean; current: boolean } {
  const conditions = Array.isArray(o.status?.conditions) ? (o.status.conditions as Condition[]) : [];
  const valid = conditions.find((c) => c.type === "Valid" && c.status === "True");
  return { shown: valid !== undefined, current: valid?.observedGeneration === o.metadata.generation };
}

/** The spec the object's status records in force (`appliedSpec`), read as a pool; undefined if none or unreadable. */
export function appliedOf(object: AddressPoolObject): ReadPool | undefined {
  const text = object.status?.appliedSpec;
  if (typeof text !== "string") return undefined;
  let spec: unknown;
  try {
    spec = JSON.parse(text);
  } catch {
    return undefined;
  }
  const read = readSpec(object, spec);
  return read.pool ? { ...read, applied: text } : undefined;
}

/**
 * 0: in force with this very spec; 1: in force with an earlier spec (edited since); 2: not in force.
 * In force: here (`inForce`), else as its status shows (`appliedSpec`; for a status written before that
 * field, the `Valid` condition).
 */
function rankOf(object: AddressPoolObject, read: ReadPool, inForce: ReadonlyMap<string, Pool>): number {
  const same = (pool: Pool): number => (read.pool && poolKey(read.pool) === poolKey(pool) ? 0 : 1);
  const held = inForce.get(object.metadata.name) ?? appliedOf(object)?.pool;
  if (held) return same(held);
  const shown = shownInForce(object);
  if (!shown.shown) return 2;
  return shown.current ? 0 : 1;
}

/**
 * Pools in force with their current spec first, then edited ones, then new ones; older first within each
 * (creation times have one-second resolution, then names). So neither a new pool nor an edit of an older
 * one ever takes addresses away from a pool in force.
 */
function inOrder(objects: readonly AddressPoolObject[], inForce: ReadonlyMap<string, Pool>): [ReadPool, number][] {
  const ranked = objects.map((object): [ReadPool, number] => {
    const read = readOne(object);
    return [read, rankOf(object, read, inForce)];
  });
  return ranked.sort(
    ([a, ra], [b, rb]) =>
      ra - rb ||
      (a.object.metadata.creationTimestamp ?? "").localeCompare(b.object.metadata.creationTimestamp ?? "") ||
      a.object.metadata.name.localeCompare(b.object.metadata.name),
  );
}

function readSpec(object: AddressPoolObject, raw: unknown): ReadPool {
  const p = new Problems();
  const spec = isMapping(raw) ? raw : {};
  const pool = readPoolFields(p, object.metadata.name, spec, "spec");
  return p.list.length > 0
    ? { object, problems: p.list }
    : { object, pool, applied: JSON.stringify(spec), problems: [] };
}

const readOne = (object: AddressPoolObject): ReadPool => readSpec(object, object.spec);

/** Lines for each range of `pool` that overlaps a range of a pool accepted before it. */
const clashes = (accepted: readonly Pool[], pool: Pool): string[] =>
  pool.ranges.flatMap((mine) =>
    accepted.flatMap((other) =>
      other.ranges
        .filter((theirs) => rangesOverlap(mine, theirs))
        .map(
          (theirs) =>
            `${mine.text} (pool ${pool.name}) overlaps ${theirs.text} (pool ${other.name}), which is in force`,
        ),
    ),
  );

/**
 * Every object read, in the order above; a pool overlapping one accepted before it is refused. An edit
 * that cannot be applied (a bad address, a new overlap) leaves the spec its status records in force
 * (`appliedSpec`), with the edit's problems shown; without one the pool offers nothing. `inForce` (the
 * pools in force now, by name) only orders the objects, as their statuses do after a restart.
 */
export function readPools(
  objects: readonly AddressPoolObject[],
  inForce: ReadonlyMap<string, Pool> = new Map(),
): ReadPool[] {
  const accepted: Pool[] = [];
  return inOrder(objects, inForce).map(([read]) => {
    const problems = read.pool ? clashes(accepted, read.pool) : read.problems;
    if (read.pool && problems.length === 0) {
      accepted.push(read.pool);
      return read;
    }
    const previous = appliedOf(read.object);
    if (!previous?.pool || clashes(accepted, previous.pool).length > 0) return { object: read.object, problems };
    accepted.push(previous.pool);
    return { ...previous, problems: problems.map((why) => `edit not applied: ${why}`) };
  });
}

export interface ClusterPools {
  /** The usable pools now, oldest first; none until the first full listing was read. */
  pools(): readonly Pool[];
  /** Every object with its verdict, for status; none until the first full listing was read. */
  read(): readonly ReadPool[];
  readonly informer: Informer<AddressPoolObject>;
  /** Whether the first full listing was read. */
  readonly synced: boolean;
  /** Resolves true once the first full listing was read, false if `signal` aborts first. */
  waitForSync(signal: AbortSignal): Promise<boolean>;
  /** Lists and watches until `signal` aborts. */
  run(signal: AbortSignal): Promise<void>;
}

/**
 * Nothing is read before the informer's first listing is whole: that listing reaches the cache one object
 * at a time, and pools read from part of it would take the place of the ones the statuses show in force
 * (a refused edit applied, a refused new pool accepted). The first reading ranks by status alone; later
 * ones by the pools in force here too. `onChange` tells of changes after the first reading.
 */
export function createClusterPools(o: {
  kube: KubeApi;
  logger: Logger;
  onChange: (before: readonly Pool[], after: readonly Pool[]) => void;
}): ClusterPools {
  const informer = new Informer<AddressPoolObject>({ api: o.kube, resource: ADDRESS_POOLS, logger: o.logger });
  let current: ReadPool[] | undefined;
  let logged = new Map<string, string>();
  const inForce = (): Pool[] => (current ?? []).flatMap((r) => r.pool ?? []);
  const recompute = (): void => {
    if (!informer.synced) return;
    const first = current === undefined;
    const before = inForce();
    current = readPools(informer.list(), new Map(before.map((p) => [p.name, p])));
    logged = logProblems(o.logger, current, logged);
    if (!first) o.onChange(before, inForce());
  };
  informer.addHandler({ add: recompute, update: recompute, delete: recompute });
  const waitForSync = async (signal: AbortSignal): Promise<boolean> => {
    if (!(await informer.waitForSync(signal))) return false;
    if (current === undefined) recompute();
    return true;
  };
  return {
    pools: inForce,
    read: () => current ?? [],
    informer,
    get synced() {
      return current !== undefined;
    },
    waitForSync,
    run: (signal) => {
      void waitForSync(signal);
      return informer.run(signal);
    },
  };
}

/** Warns once per pool and problem; returns the problems now, by pool name. */
function logProblems(
  logger: Logger,
  read: readonly ReadPool[],
  logged: ReadonlyMap<string, string>,
): Map<string, string> {
  const next = new Map(
    read.filter((r) => r.problems.length > 0).map((r) => [r.object.metadata.name, r.problems.join("; ")]),
  );
  for (const r of read) {
    const name = r.object.metadata.name;
    const why = next.get(name);
    if (why === undefined || logged.get(name) === why) continue;
    logger.warn(`address pool ${name} ${r.pool ? "keeps its previous spec" : "offers no addresses"}: ${why}`);
  }
  return next;
}
