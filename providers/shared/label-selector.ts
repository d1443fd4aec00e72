/**
 * Kubernetes label selectors (`metav1.LabelSelector`): `matchLabels` and `matchExpressions` with the
 * operators In, NotIn, Exists and DoesNotExist, all terms ANDed; an empty selector matches everything.
 * Used by address pools (namespace and Service selectors, as MetalLB's `serviceAllocation`).
 */
import { isMapping, type Problems, type Raw } from "./config-reader.ts";

export type SelectorOperator = "In" | "NotIn" | "Exists" | "DoesNotExist";

export interface SelectorRequirement {
  readonly key: string;
  readonly operator: SelectorOperator;
  readonly values: readonly string[];
}

export interface LabelSelector {
  readonly matchLabels: Readonly<Record<string, string>>;
  readonly matchExpressions: readonly SelectorRequirement[];
}

const OPERATORS: readonly SelectorOperator[] = ["In", "NotIn", "Exists", "DoesNotExist"];

function requirementMatches(r: SelectorRequirement, labels: Readonly<Record<string, string>>): boolean {
  const value = labels[r.key];
  switch (r.operator) {
    case "In":
      return value !== undefined && r.values.includes(value);
    case "NotIn":
      return value === undefined || !r.values.includes(value);
    case "Exists":
      return value !== undefined;
    case "DoesNotExist":
      return value === undefined;
  }
}

export function selectorMatches(selector: LabelSelector, labels: Readonly<Record<string, string>>): boolean {
  const pairs = Object.entries(selector.matchLabels);
  return (
    pairs.every(([k, v]) => labels[k] === v) && selector.matchExpressions.every((r) => requirementMatches(r, labels))
  );
}

/** `app=web,tier in (a,b)`-style text, for messages. */
export function describeSelector(selector: LabelSelector): string {
  const labels = Object.entries(selector.matchLabels).map(([k, v]) => `${k}=${v}`);
  const expressions = selector.matchExpressions.map((r) => {
    if (r.operator === "Exists") return r.key;
    if (r.operator === "DoesNotExist") return `!${r.key}`;
    return `${r.key} ${r.operator === "In" ? "in" : "notin"} (${r.values.join(",")})`;
  });
  return [...labels, ...expressions].join(",") || "(everything)";
}

function requirementShape(item: unknown): SelectorRequirement | undefined {
  if (!isMapping(item)) return undefined;
  const values: unknown = item.values ?? [];
  const operator = item.operator as SelectorOperator;
  const strings = Array.isArray(values) && values.every((v) => typeof v === "string");
  if (typeof item.key !== "string" || !OPERATORS.includes(operator) || !strings) return undefined;
  return { key: item.key, operator, values };
}

function readRequirement(p: Problems, item: unknown, path: string): SelectorRequirement | undefined {
  const requirement = requirementShape(item);
  if (!requirement) {
    p.add(path, `must be {key, operator: ${OPERATORS.join("|")}, values: [strings]}`);
    return undefined;
  }
  const needsValues = requirement.operator === "In" || requirement.operator === "NotIn";
  if (needsValues !== requirement.values.length > 0)
    p.add(path, `operator ${requirement.operator} ${needsValues ? "needs" : "takes no"} values`);
  return requirement;
}

function readMatchLabels(p: Problems, raw: Raw, path: string): Record<string, string> {
  const labels = raw.matchLabels ?? {};
  if (!isMapping(labels) || !Object.values(labels).every((v) => typeof v === "string")) {
    p.add(`${path}.matchLabels`, "must map label keys to string values");
    return {};
  }
  return labels as Record<string, string>;
}

/** One selector from configuration; problems name the field path. */
export function readSelector(p: Problems, item: unknown, path: string): LabelSelector | undefined {
  if (!isMapping(item)) {
    p.add(path, "must be a label selector (matchLabels, matchExpressions)");
    return undefined;
  }
  const expressions = Array.isArray(item.matchExpressions) ? item.matchExpressions : [];
  if (item.matchExpressions !== undefined && !Array.isArray(item.matchExpressions))
    p.add(`${path}.matchExpressions`, "must be a list");
  return {
    matchLabels: readMatchLabels(p, item, path),
    matchExpressions: expressions.flatMap((e, i) => readRequirement(p, e, `${path}.matchExpressions[${i}]`) ?? []),
  };
}

/** A list of selectors at `raw[key]`; absent means none. */
export function readSelectors(p: Problems, raw: Raw, key: string, path: string): LabelSelector[] {
  const value = raw[key];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    p.add(`${path}.${key}`, "must be a list of label selectors");
    return [];
  }
  return value.flatMap((item, i) => readSelector(p, item, `${path}.${key}[${i}]`) ?? []);
}
