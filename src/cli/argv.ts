/**
 * Strict pflag-style argument parsing against the flag table: `--flag=value`, `--flag value`, bare
 * booleans and `--flag=false`, `-v N` / `-v=N` / `-vN`, repeated list flags append. Every problem is
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
  const byName = new Map(specs.map((s) => [s.name, s]));
  const byShort = new Map(specs.filter((s) => s.short).map((s) => [s.short, s]));
  const values = new Map<string, string>();
  const positionals: string[] = [];
  const errors: string[] = [];
  let i = 0;
  while (i < argv.length) {
    const arg = argv[i++] ?? "";
    if (arg === "--") {
      positionals.push(...argv.slice(i));
      break;
    }
    const token = tokenize(arg, byShort);
    if (!token) {
      positionals.push(arg);
      continue;
    }
    const spec = byName.get(token.name);
    if (!spec) {
      errors.push(`unknown flag: ${token.display}`);
      continue;
    }
    const value = token.inline ?? takeValue(spec, argv, i);
    if (token.inline === undefined && spec.type !== "bool") i++;
    if (value === undefined) {
      errors.push(`flag needs an argument: ${token.display}`);
      continue;
    }
    store(values, spec, value);
  }
  return { values, positionals, errors };
}

function tokenize(arg: string, byShort: ReadonlyMap<string | undefined, FlagSpec>): Token | undefined {
  if (arg.startsWith("--") && arg.length > 2) {
    const body = arg.slice(2);
    const eq = body.indexOf("=");
    const name = eq < 0 ? body : body.slice(0, eq);
    return { name, inline: eq < 0 ? undefined : body.slice(eq + 1), display: `--${name}` };
  }
  if (arg.startsWith("-") && arg.length > 1 && !/^-\d/.test(arg)) {
    const short = arg.slice(1, 2);
    const rest = arg.slice(2);
    const spec = byShort.get(short);
    const name = spec?.name ?? short;
    const inline = rest === "" ? undefined : rest.replace(/^=/, "");
    return { name, inline, display: `-${short}` };
  }
  return undefined;
}

function takeValue(spec: FlagSpec, argv: readonly string[], next: number): string | undefined {
  if (spec.type === "bool") return "true";
  return argv[next];
}

function store(values: Map<string, string>, spec: FlagSpec, value: string): void {
  const previous = values.get(spec.name);
  values.set(spec.name, spec.type === "list" && previous !== undefined ? `${previous},${value}` : value);
}
