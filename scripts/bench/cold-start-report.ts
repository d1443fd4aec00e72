/** The mixed cold start's table in `results.md` and the README (ratios ours / Go). */
import { both, f, ratioOf, seconds, table } from "./markdown.ts";
import type { BenchResults } from "./results.ts";
import type { ColdStartCase, ColdStartResult } from "./scenarios/cold-start.ts";

/** "2,000 nodes, 200 services, routes, 50 ms, 4 threads". */
export function coldStartLabel(c: ColdStartCase): string {
  const n = (x: number): string => x.toLocaleString("en");
  const threads = c.threads ? `${c.threads} thread${c.threads > 1 ? "s" : ""} (ours)` : "single-thread";
  return `${n(c.nodes)} nodes, ${n(c.services)} services, routes, ${c.latencyMs} ms, ${threads}`;
}

/**
 * The mixed cold start: until all done, and each of its parts (Nodes initialised, Services with ingress,
 * routes created); our runs with threads against our single-thread run of the same size.
 */
export function coldStartTable(r: BenchResults): string {
  const runs = r.coldStart ?? [];
  const single = (c: ColdStartCase): ColdStartResult | undefined =>
    runs.find((p) => p.case.threads === 0 && p.case.nodes === c.nodes && p.case.services === c.services)?.ours;
  const head = [
    "case",
    "all done s (Go · ours)",
    "ours / Go",
    "ours vs single-thread",
    "nodes initialised s (Go · ours)",
    "all ingress s (Go · ours)",
    "all routes s (Go · ours)",
    "CPU s (Go · ours)",
    "peak RSS MiB (Go · ours)",
    "API requests (Go · ours)",
  ];
  const rows = runs.map((p) => {
    const base = single(p.case);
    return [
      coldStartLabel(p.case),
      both(p, seconds),
      ratioOf(p, seconds),
      f(p.ours && base && p.ours.seconds / base.seconds, 2),
      both(p, (x) => x.nodesSeconds),
      both(p, (x) => x.servicesSeconds),
      both(p, (x) => x.routesSeconds),
      both(p, (x) => x.cpuSeconds),
      both(p, (x) => x.peakRssMiB, 0),
      both(p, (x) => x.requests.total, 0),
    ];
  });
  return table(head, rows);
}
