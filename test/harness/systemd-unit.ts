/**
 * Reads a systemd unit the way systemd starts it: `EnvironmentFile=` files (a `-` prefix: optional), then
 * `ExecStart=` split into words with `$VAR` expanded to the variable's whitespace-separated words and
 * `${VAR}` to one word (systemd.service(5), "Command lines"). Only what the generated units use: no
 * quoting, no specifiers.
 */
import { existsSync, readFileSync } from "node:fs";

export type UnitSections = Record<string, Record<string, string[]>>;

export function parseUnit(text: string): UnitSections {
  const sections: UnitSections = {};
  let current: Record<string, string[]> | undefined;
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      current = sections[header[1]!] ??= {};
      continue;
    }
    const eq = line.indexOf("=");
    if (!current || eq < 0) throw new Error(`not a unit line: ${line}`);
    (current[line.slice(0, eq)] ??= []).push(line.slice(eq + 1));
  }
  return sections;
}

/** `KEY=value` and `KEY="value"` lines (systemd.exec(5), EnvironmentFile=). */
export function parseEnvironmentFile(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of text.split("\n").map((l) => l.trim())) {
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=(?:"([^"]*)"|(\S*))$/.exec(line);
    if (!match) throw new Error(`unsupported environment file line: ${line}`);
    env[match[1]!] = match[2] ?? match[3] ?? "";
  }
  return env;
}

export interface ServiceStart {
  readonly command: string[];
  /** The service's environment from its EnvironmentFile= files. */
  readonly env: Record<string, string>;
}

/** Every EnvironmentFile= in order, later ones overriding; a missing `-`-prefixed file is skipped. */
function environment(files: readonly string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const entry of files) {
    const optional = entry.startsWith("-");
    const path = optional ? entry.slice(1) : entry;
    if (optional && !existsSync(path)) continue;
    Object.assign(env, parseEnvironmentFile(readFileSync(path, "utf8")));
  }
  return env;
}

export function serviceStart(unitText: string): ServiceStart {
  const service = parseUnit(unitText).Service ?? {};
  const env = environment(service.EnvironmentFile ?? []);
  const [execStart, ...more] = service.ExecStart ?? [];
  if (execStart === undefined || more.length > 0) throw new Error("expected exactly one ExecStart=");
  if (/["'\\%]/.test(execStart))
    throw new Error(`ExecStart= uses quoting or specifiers this reader does not implement: ${execStart}`);
  const command = execStart.split(/\s+/).flatMap((word) => {
    const whole = /^\$\{(\w+)\}$/.exec(word);
    if (whole) return [env[whole[1]!] ?? ""];
    const split = /^\$(\w+)$/.exec(word);
    if (split) return (env[split[1]!] ?? "").split(/\s+/).filter(Boolean);
    return [word];
  });
  return { command, env };
}
