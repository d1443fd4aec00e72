/**
 * Runtime settings the compiled manager gives itself. Bun reads them only from the environment before its
 * VM and allocator start, so the manager sets what is missing and re-executes itself once (same PID, same
 * arguments). A value already in the environment is kept: that is also how to opt out of either. Only
 * the manager run re-executes; the other commands are short-lived.
 *
 * `BUN_JSC_forceRAMSize`: how big JavaScriptCore lets the heap grow between collections. JSC derives its
 * growth heuristics from the machine's RAM: on a control-plane host with tens of GiB it lets a manager
 * whose live heap is some 30 MiB accumulate garbage for long stretches, so a burst of thousands of Node
 * initialisations peaks far above what the manager holds. Sized as for a machine of at most 1 GiB, the
 * same burst peaks about 15% lower at the same CPU (measured with `npm run bench`: 5,000 Nodes, median of
 * three runs 164 → 138 MiB peak RSS), and the heap still grows freely when the live set needs it. To opt
 * out, set it to the machine's RAM.
 *
 * `MIMALLOC_PURGE_HOLES_MIN_INTERVAL`: each time a thread's event loop parks, Bun's allocator hands the
 * free blocks inside its pages back to the system, on its scavenger thread, at most once per this many
 * milliseconds (100 by default). A live cluster's heartbeats park the manager a few times a second, and
 * those sweeps were a third of its steady CPU (500 Nodes, 17 heartbeats a second: the scavenger 0.09–0.11
 * → 0.03 CPU s a minute at 1,000 ms); an idle manager with 5,000 Nodes kept the same RSS.
 *
 * `BUN_JSC_useFTLJIT`: JavaScriptCore's last tier (FTL) is off. Its compilers cost every VM (the main
 * thread and each controller thread) about half a CPU second as a burst makes code hot, and the code they
 * made ran no faster here: most of a manager's time is in native JSON, sockets and TLS. Measured with
 * `bun scripts/bench/node-cost.ts --nodes 5000` and `heartbeat-cost.ts --nodes 5000 --rate 200` (README,
 * runtime settings): the manager's CPU in the burst 5.06–5.22 → 4.63–4.95 s, the main thread's the same;
 * a heartbeat 50–57 against 60–73 µs while its code was still being compiled, 45–47 against 42–57 µs
 * after 90 s of heartbeats. To opt out, set it to `true`.
 */
export const JSC_RAM_SIZE = "BUN_JSC_forceRAMSize";
export const HEAP_SIZING_RAM_BYTES = 2 ** 30;
export const HOLE_PURGE_INTERVAL = "MIMALLOC_PURGE_HOLES_MIN_INTERVAL";
export const HOLE_PURGE_INTERVAL_MS = 1000;
export const FTL_JIT = "BUN_JSC_useFTLJIT";

export interface RuntimeTuningInput {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The manager's arguments (without the executable). */
  readonly args: readonly string[];
  /** Whether this is the compiled executable (a source run under `bun` is left alone). */
  readonly compiled: boolean;
  readonly totalMemoryBytes: number;
}

/** Whether `args` start the manager itself (no subcommand other than `run`, no help or version). */
export function runsManager(args: readonly string[]): boolean {
  const first = args[0];
  const subcommand = first !== undefined && !first.startsWith("-") && first !== "run";
  return !subcommand && !args.some((a) => a === "--help" || a === "-h" || a === "--version");
}

/** The environment to re-execute with, or undefined when this process should simply go on. */
export function runtimeTuningEnvironment(input: RuntimeTuningInput): Record<string, string> | undefined {
  if (!input.compiled || !runsManager(input.args)) return undefined;
  const wanted: Record<string, string> = {
    [JSC_RAM_SIZE]: String(Math.min(input.totalMemoryBytes, HEAP_SIZING_RAM_BYTES)),
    [HOLE_PURGE_INTERVAL]: String(HOLE_PURGE_INTERVAL_MS),
    [FTL_JIT]: "false",
  };
  const missing = Object.entries(wanted).filter(([key]) => input.env[key] === undefined);
  if (missing.length === 0) return undefined;
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(input.env)) if (value !== undefined) env[key] = value;
  return { ...env, ...Object.fromEntries(missing) };
}
