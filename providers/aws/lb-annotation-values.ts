/** Value readers for `aws-load-balancer-*` annotations; each throws an Error naming the annotation and value. */
import { parseBool } from "../../src/config/values.ts";

export const PREFIX = "service.beta.kubernetes.io/aws-load-balancer-";

/** Reads one annotation by its short name (after the prefix); undefined when absent. */
export type Read = (name: string) => string | undefined;

export function badAnnotation(name: string, value: string, why: string): Error {
  return new Error(`annotation ${PREFIX}${name}: invalid value ${JSON.stringify(value)}: ${why}`);
}

/** Go's strconv.ParseBool, as upstream reads boolean annotations: 1, t, T, TRUE, true, True and their false. */
export function readBool(read: Read, name: string): boolean | undefined {
  const value = read(name);
  if (value === undefined) return undefined;
  const parsed = parseBool(value);
  if (parsed === undefined) throw badAnnotation(name, value, "expected true or false (or 1, t, TRUE, 0, f, FALSE, …)");
  return parsed;
}

export function readInt(read: Read, name: string, min: number, max: number): number | undefined {
  const value = read(name);
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || n < min || n > max)
    throw badAnnotation(name, value, `expected a whole number from ${min} to ${max}`);
  return n;
}

/** A comma-separated list; empty items are dropped. */
export function readList(read: Read, name: string): string[] {
  return (read(name) ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

/** `k1=v1,k2=v2`; with `allowEmpty`, `k3=` (and a bare `k3`) mean an empty value. */
export function readMap(read: Read, name: string, allowEmpty: boolean): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of readList(read, name)) {
    const eq = item.indexOf("=");
    const key = (eq < 0 ? item : item.slice(0, eq)).trim();
    const value = eq < 0 ? "" : item.slice(eq + 1).trim();
    if (key === "" || (!allowEmpty && value === ""))
      throw badAnnotation(
        name,
        read(name) ?? "",
        `expected key=value pairs separated by commas, got ${JSON.stringify(item)}`,
      );
    out[key] = value;
  }
  return out;
}
