/**
 * How big JavaScriptCore lets the heap grow between collections. JSC derives its growth heuristics from
 * the machine's RAM: on a control-plane host with tens of GiB it lets a manager whose live heap is some
 * 30 MiB accumulate garbage for long stretches, so a burst of thousands of Node initialisations peaks
 * far above what the manager holds. Sized as for a machine of at most 1 GiB, the same burst peaks about
 * 15% lower at the same CPU (measured with `npm run bench`: 5,000 Nodes, median of three runs
 * 164 → 138 MiB peak RSS), and the heap still grows freely when the live set needs it.
 *
 * Bun reads JSC options only from the environment before its VM starts, so the compiled manager sets
 * `BUN_JSC_forceRAMSize` and re-executes itself once (same PID, same arguments). A value already in the
 * environment is kept: that is also how to opt out (set it to the machine's RAM). Only the manager run
 * re-executes; the other commands are short-lived.
 */
export const JSC_RAM_SIZE = "BUN_JSC_forceRAMSize";
export const HEAP_SIZING_RAM_BYTES = 2 ** 30;

export interface HeapSizingInput {
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
export function heapSizingEnvironment(input: HeapSizingInput): Record<string, string> | undefined {
  if (!input.compiled || input.env[JSC_RAM_SIZE] !== undefined || !runsManager(input.args)) return undefined;
  const ramBytes = Math.min(input.totalMemoryBytes, HEAP_SIZING_RAM_BYTES);
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(input.env)) if (value !== undefined) env[key] = value;
  return { ...env, [JSC_RAM_SIZE]: String(ramBytes) };
}
