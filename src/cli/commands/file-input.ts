/**
 * What the file-converting commands (`import-pools`, `export-inventory`) share: the file arguments (`-` is
 * standard input), reading one, and the one-line failure with exit status 2.
 */
import { readFileSync } from "node:fs";
import type { CommandData } from "../cli.ts";

export function fileArgs(rawArgs: readonly string[]): string[] {
  return rawArgs.filter((a) => a === "-" || !a.startsWith("-"));
}

/** Writes `error: <line>` and sets exit status 2. */
export function usageFailure(command: CommandData): (line: string) => void {
  return (line) => {
    command.io.stderr(`error: ${line}\n`);
    command.exitCode = 2;
  };
}

/** A file argument's text; `-` reads standard input. */
export function readInput(path: string): string {
  return readFileSync(path === "-" ? 0 : path, "utf8");
}
