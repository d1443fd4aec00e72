/**
 * Arguments of commands that also take the manager's flags (`manifests`, `install`, `check`): the
 * command's own flags are taken out, positionals kept, and everything else is left for the manager's
 * strict parser (`loadConfig`), so an unknown or malformed flag fails the same way everywhere.
 */
import type { ArgsDef } from "citty";
import { FLAGS } from "../config/flags.ts";

export interface OwnFlag {
  readonly name: string;
  readonly type: "string" | "bool";
  readonly default: string;
  readonly usage: string;
}

export interface SplitArgs {
  readonly own: ReadonlyMap<string, string>;
  readonly manager: readonly string[];
  readonly positionals: readonly string[];
  readonly errors: readonly string[];
}

const MANAGER_FLAGS = new Map(FLAGS.map((f) => [f.name, f]));

/** `--name`, `--name=value` or `-n…` → flag name and inline value. */
function flagOf(arg: string): { name: string; inline?: string } | undefined {
  if (!arg.startsWith("-") || arg === "-" || /^-\d/.test(arg)) return undefined;
  const body = arg.replace(/^--?/, "");
  const eq = body.indexOf("=");
  return eq < 0 ? { name: body } : { name: body.slice(0, eq), inline: body.slice(eq + 1) };
}

/** Whether a manager flag written as `--name value` takes the next argument as its value. */
function takesNext(name: string, inline: string | undefined): boolean {
  const spec = MANAGER_FLAGS.get(name);
  return inline === undefined && spec !== undefined && spec.type !== "bool";
}

interface Cursor {
  readonly argv: readonly string[];
  i: number;
}

/** The value of an own string flag: inline, or the next argument. */
function ownText(cursor: Cursor, inline: string | undefined): string | undefined {
  if (inline !== undefined) return inline;
  if (cursor.argv[cursor.i + 1] === undefined) return undefined;
  cursor.i += 1;
  return cursor.argv[cursor.i];
}

/** A manager flag, with its separate value when it takes one. */
function managerFlag(cursor: Cursor, flag: { name: string; inline?: string }): string[] {
  const arg = cursor.argv[cursor.i] ?? "";
  const next = cursor.argv[cursor.i + 1];
  if (!takesNext(flag.name, flag.inline) || next === undefined) return [arg];
  cursor.i += 1;
  return [arg, next];
}

export function splitArgs(argv: readonly string[], ownFlags: readonly OwnFlag[]): SplitArgs {
  const split = {
    own: new Map<string, string>(),
    manager: [] as string[],
    positionals: [] as string[],
    errors: [] as string[],
  };
  const byName = new Map(ownFlags.map((f) => [f.name, f]));
  const cursor: Cursor = { argv, i: 0 };
  for (; cursor.i < argv.length; cursor.i++) {
    const arg = argv[cursor.i] ?? "";
    const flag = flagOf(arg);
    const spec = flag && byName.get(flag.name);
    if (!flag) split.positionals.push(arg);
    else if (!spec) split.manager.push(...managerFlag(cursor, flag));
    else {
      const value = spec.type === "bool" ? (flag.inline ?? "true") : ownText(cursor, flag.inline);
      if (value === undefined) split.errors.push(`flag needs an argument: --${spec.name}`);
      else split.own.set(spec.name, value);
    }
  }
  return split;
}

/** The command's own flag value, or its default. */
export function ownValue(split: SplitArgs, flag: OwnFlag): string {
  return split.own.get(flag.name) ?? flag.default;
}

/** `true`/`false` own flags; anything else is reported by the caller. */
export function ownBool(split: SplitArgs, flag: OwnFlag, errors: string[]): boolean {
  const value = ownValue(split, flag);
  if (value !== "true" && value !== "false")
    errors.push(`invalid value ${JSON.stringify(value)} for flag --${flag.name}: must be true or false`);
  return value === "true";
}

/** citty argument definitions for `--help`. */
export function helpArgs(ownFlags: readonly OwnFlag[], positional?: { name: string; description: string }): ArgsDef {
  const args: ArgsDef = {};
  if (positional) args[positional.name] = { type: "positional", description: positional.description, required: false };
  for (const f of ownFlags) {
    args[f.name] =
      f.type === "bool"
        ? { type: "boolean", description: f.usage }
        : { type: "string", description: f.usage, default: f.default || undefined };
  }
  return args;
}
