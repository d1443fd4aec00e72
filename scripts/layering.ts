/**
 * The import graph of `src/` (tests left out): every folder cycle (`app/` imports `cli/` which imports
 * `app/`) and every file circle (two files importing each other, directly or around a ring). A file right
 * under `src/` counts as a folder of its own. Exits 1 naming each cycle, 0 when there is none.
 *
 *   npm run layering
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const IMPORT = /^\s*(?:import|export)\b[^;]*?\bfrom\s*["'](\.[^"']+)["']|^\s*import\s*["'](\.[^"']+)["']/gm;

export type Graph = ReadonlyMap<string, ReadonlySet<string>>;

/** Every non-test `.ts` file below `dir`, as paths relative to `root`. */
export function sourceFiles(root: string, dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(root, path);
    const source = entry.name.endsWith(".ts") && !/\.test(-support)?\.ts$/.test(entry.name);
    return source ? [path] : [];
  });
}

/** Relative imports of each file that stay inside `dir`. */
export function fileGraph(root: string, dir: string): Graph {
  const files = new Set(sourceFiles(root, dir));
  const graph = new Map<string, Set<string>>();
  for (const file of files) {
    const targets = new Set<string>();
    for (const match of readFileSync(join(root, file), "utf8").matchAll(IMPORT)) {
      const spec = match[1] ?? match[2] ?? "";
      const target = relative(root, resolve(root, dirname(file), spec));
      if (files.has(target)) targets.add(target);
    }
    graph.set(file, targets);
  }
  return graph;
}

/** The folder below `dir` a file belongs to (`src/app/threads/host.ts` → `app`), or the file itself. */
export function folderOf(dir: string, file: string): string {
  const parts = relative(dir, file).split("/");
  return parts.length > 1 ? `${parts[0]}/` : file;
}

export function folderGraph(dir: string, files: Graph): Graph {
  const graph = new Map<string, Set<string>>();
  for (const [file, targets] of files) {
    const from = folderOf(dir, file);
    const edges = graph.get(from) ?? new Set<string>();
    graph.set(from, edges);
    for (const target of targets) if (folderOf(dir, target) !== from) edges.add(folderOf(dir, target));
  }
  return graph;
}

/** Strongly connected components with more than one node (Tarjan), each sorted; a self-loop is not one. */
export function cycles(graph: Graph): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!index.has(target)) visit(target);
      if (onStack.has(target)) low.set(node, Math.min(low.get(node)!, low.get(target) ?? index.get(target)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    for (let top = stack.pop(); top !== undefined; top = top === node ? undefined : stack.pop()) {
      onStack.delete(top);
      component.push(top);
    }
    if (component.length > 1) found.push(component.sort());
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return found;
}

const STATIC_IMPORT =
  /^\s*(?:import|export)(?!\s+type\b)[^;]*?\bfrom\s*["']([^"']+)["']|^\s*import\s*["']([^"']+)["']/gm;

/**
 * The packages a module loads when `entry` is evaluated: static imports followed through relative paths
 * (type-only imports and `import()` left out, as neither runs at load time).
 */
export function packagesLoaded(root: string, entry: string): Set<string> {
  const packages = new Set<string>();
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const match of readFileSync(join(root, file), "utf8").matchAll(STATIC_IMPORT)) {
      const spec = match[1] ?? match[2] ?? "";
      if (spec.startsWith(".")) visit(relative(root, resolve(root, dirname(file), spec)));
      else packages.add(spec);
    }
  };
  visit(entry);
  return packages;
}

/** One line per cycle, empty when the layering holds. */
export function layeringProblems(root: string, dir = "src"): string[] {
  const files = fileGraph(root, dir);
  return [
    ...cycles(folderGraph(dir, files)).map((c) => `folder cycle: ${c.join(" ↔ ")}`),
    ...cycles(files).map((c) => `file circle: ${c.join(" ↔ ")}`),
  ];
}

if (import.meta.main) {
  const problems = layeringProblems(resolve(dirname(new URL(import.meta.url).pathname), ".."));
  for (const line of problems) console.log(line);
  if (problems.length === 0) console.log("src/: no folder cycle, no file circle");
  process.exit(problems.length > 0 ? 1 : 0);
}
