/**
 * Working directories of local control planes (tests, demo, benchmarks) under the cache: each named after
 * its start time and owner pid; the newest few finished ones are kept for their logs, and a directory
 * whose owner still runs is never removed (runs in parallel share the cache, and etcd's data is inside).
 */
import { mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { cacheRoot } from "./binaries.ts";
import { processAlive } from "./process-alive.ts";

const ownerOf = (name: string): number => Number(name.slice(name.lastIndexOf("-") + 1));

/** A new directory under `<cache>/<kind>`, after pruning finished runs beyond the newest `keep`. */
export function freshRunDir(kind: string, keep = 3): string {
  const parent = join(cacheRoot(), kind);
  mkdirSync(parent, { recursive: true });
  const finished = readdirSync(parent)
    .filter((name) => !processAlive(ownerOf(name)))
    .map((name) => ({ name, at: statSync(join(parent, name)).mtimeMs }))
    .sort((a, b) => b.at - a.at);
  for (const { name } of finished.slice(Math.max(0, keep - 1)))
    rmSync(join(parent, name), { recursive: true, force: true });
  return join(parent, `${new Date().toISOString().replace(/[:.]/g, "-")}-${process.pid}`);
}
