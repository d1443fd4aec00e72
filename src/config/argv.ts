/**
 * Strict pflag-style argument parsing against the flag table: `--flag=value`, `--flag value`, bare
 * booleans and `--flag=false`, `-v N` / `-v=N` / `-vN`, repeated list flags append (comma-joined), repeated
 * `repeated` flags keep each occurrence (newline-joined: their values hold commas). Every problem is
 * collected so the caller can report them all at once.
 */
import type { FlagSpec } from "./flags.ts";

export interface ParsedArgv {
  /** Raw text per flag name, defaults not applied. List flags hold the joined occurrences. */
  readonly values: ReadonlyMap<string, string>;
  readonly positionals: readonly string[];
  readonly errors: readonly string[];
}

interface Token {
  readonly name: string;
  readonly inline: string | undefined;
  readonly display: string;
}

export function parseArgv(argv: readonly string[], specs: readonly FlagSpec[]): ParsedArgv {
  const state = {
    byName: new Map(specs.map((s) => [s.name, s])),
    byShort: shortNames(specs),
    values: new Map<string, string>(),
    positionals: [] as string[],
    errors: [] as string[],
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    if (arg === "--") {
      state.positionals.push(...argv.slice(i + 1));
      break;
    }
    i += consume(state, arg, argv[i + 1]);
  }
  return { values: state.values, positionals: state.positionals, errors: state.errors };
}

interface ParseState {
  readonly byName: ReadonlyMap<string, FlagSpec>;
  readonly byShort: ReadonlyMap<string, FlagSpec>;
  readonly values: Map<string, string>;
  readonly positionals: string[];
  readonly errors: string[];
}

function shortNames(specs: readonly FlagSpec[]): Map<string, FlagSpec> {
  return new Map(specs.flatMap((s) => (s.short ? [[s.short, s] as const] : [])));
}

/** Handles one argument; returns how many following arguments it used as its value (0 or 1). */
function consume(state: ParseState, arg: string, next: string | undefined): number {
  const token = tokenize(arg, state.byShort);
  if (!token) {
    state.positionals.push(arg);
    return 0;
  }
  const spec = state.byName.get(token.name);
  if (!spec) {
    state.errors.push(`unknown flag: ${token.display}`);
    return 0;
  }
  const fromNext = token.inline === undefined && spec.type !== "bool";
  const value = token.inline ?? takeValue(spec, next);
  if (value === undefined) state.errors.push(`flag needs an argument: ${token.display}`);
  else store(state.values, spec, value);
  return fromNext && value !== undefined ? 1 : 0;
}

function tokenize(arg: string, byShort: ReadonlyMap<string, FlagSpec>): Token | undefined {
  if (arg.startsWith("--") && arg.length > 2) return longToken(arg.slice(2));
  if (arg.startsWith("-") && arg.length > 1 && !/^-\d/.test(arg)) return shortToken(arg, byShort);
  return undefined;
}

/** Underscores in a name read as dashes, as upstream's `cliflag.WordSepNormalizeFunc` has them. */
function longToken(body: string): Token {
  const eq = body.indexOf("=");
  const given = eq < 0 ? body : body.slice(0, eq);
  return { name: given.replaceAll("_", "-"), inline: eq < 0 ? undefined : body.slice(eq + 1), display: `--${given}` };
}

/** `-v`, `-v=4`, `-v4`. */
function shortToken(arg: string, byShort: ReadonlyMap<string, FlagSpec>): Token {
  const short = arg.slice(1, 2);
  const rest = arg.slice(2);
  return {
    name: byShort.get(short)?.name ?? short,
    inline: rest === "" ? undefined : rest.replace(/^=/, ""),
    display: `-${short}`,
  };
}

function takeValue(spec: FlagSpec, next: string | undefined): string | undefined {
  return spec.type === "bool" ? "true" : next;
}

function store(values: Map<string, string>, spec: FlagSpec, value: string): void {
  const previous = values.get(spec.name);
  const joiner = spec.type === "list" ? "," : spec.type === "repeated" ? "\n" : undefined;
  values.set(spec.name, joiner !== undefined && previous !== undefined ? `${previous}${joiner}${value}` : value);
}
