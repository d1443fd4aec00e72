/**
 * Field readers for the bare-metal cloud-config. Each reader records a problem naming the field's full path
 * (`inventory.machines[3].zone: must be a string`) and returns a usable fallback, so one pass reports every
 * problem at once.
 */
import { isDnsLabel, isDnsSubdomain } from "../../src/names/dns.ts";

export type Raw = Record<string, unknown>;

export class Problems {
  readonly list: string[] = [];
  add(path: string, message: string): void {
    this.list.push(`${path}: ${message}`);
  }
}

export const isMapping = (value: unknown): value is Raw =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The mapping at `path`; undefined (and a problem, unless the value is absent) otherwise. */
export function mappingAt(p: Problems, value: unknown, path: string): Raw | undefined {
  if (value === undefined || value === null) return undefined;
  if (isMapping(value)) return value;
  p.add(path, "must be a mapping");
  return undefined;
}

export function onlyKeys(p: Problems, raw: Raw, path: string, known: readonly string[]): void {
  for (const key of Object.keys(raw)) {
    if (!known.includes(key)) p.add(path === "" ? key : `${path}.${key}`, `unknown field (known: ${known.join(", ")})`);
  }
}

const at = (path: string, key: string): string => (path === "" ? key : `${path}.${key}`);

/** A reader of one optional scalar field: absent or null is undefined, a wrong type is a problem. */
function optionalReader<T>(
  accept: (value: unknown) => value is T,
  message: string,
): (p: Problems, raw: Raw, key: string, path: string) => T | undefined {
  return (p, raw, key, path) => {
    const value = raw[key];
    if (value === undefined || value === null) return undefined;
    if (accept(value)) return value;
    p.add(at(path, key), message);
    return undefined;
  };
}

export const optionalString = optionalReader((v): v is string => typeof v === "string", "must be a string");
export const optionalBool = optionalReader((v): v is boolean => typeof v === "boolean", "must be true or false");
export const optionalCount = optionalReader(
  (v): v is number => typeof v === "number" && Number.isSafeInteger(v) && v >= 0,
  "must be a whole number, 0 or more",
);

/** The list at `raw[key]`; absent means empty. */
export function listAt(p: Problems, raw: Raw, key: string, path: string): unknown[] {
  const value = raw[key];
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value;
  p.add(at(path, key), "must be a list");
  return [];
}

export function stringList(p: Problems, raw: Raw, key: string, path: string): string[] {
  return listAt(p, raw, key, path).flatMap((item, i) => {
    if (typeof item === "string" && item !== "") return [item];
    p.add(`${at(path, key)}[${i}]`, "must be a non-empty string");
    return [];
  });
}

const LABEL_NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
/** Prefixes the node controller refuses to set from provider labels (upstream filters them too). */
const RESERVED_PREFIX = /(^|\.)(kubernetes|k8s)\.io$/;

export { isDnsLabel, isDnsSubdomain };

/** Why `key` is not a qualified name (`prefix/name`, the syntax of label and annotation keys). */
export function qualifiedNameProblem(key: string, what: string): string | undefined {
  const slash = key.lastIndexOf("/");
  const prefix = slash < 0 ? "" : key.slice(0, slash);
  const name = key.slice(slash + 1);
  if (slash >= 0 && !isDnsSubdomain(prefix)) return `${what} ${JSON.stringify(key)} has an invalid prefix`;
  if (name.length > 63 || !LABEL_NAME.test(name)) return `${what} ${JSON.stringify(key)} is not a valid name`;
  return undefined;
}

/** Why `key` is not usable as a provider label key, or undefined when it is. */
export function labelKeyProblem(key: string): string | undefined {
  const slash = key.lastIndexOf("/");
  if (slash >= 0 && RESERVED_PREFIX.test(key.slice(0, slash))) {
    return `label key ${JSON.stringify(key)} is under kubernetes.io or k8s.io, which the node controller never sets from a provider`;
  }
  return qualifiedNameProblem(key, "label key");
}

export function labelValueProblem(value: string): string | undefined {
  if (value === "" || (value.length <= 63 && LABEL_NAME.test(value))) return undefined;
  return `label value ${JSON.stringify(value)} must be at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit`;
}

/** A label mapping with every key and value checked. */
export function labelsAt(p: Problems, raw: Raw, key: string, path: string): Record<string, string> {
  const value = mappingAt(p, raw[key], at(path, key));
  if (!value) return {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) {
    const text = typeof v === "number" || typeof v === "boolean" ? String(v) : v;
    const problem =
      typeof text === "string" ? (labelKeyProblem(k) ?? labelValueProblem(text)) : "label values must be strings";
    if (problem) p.add(at(path, key), problem);
    else out[k] = text as string;
  }
  return out;
}
