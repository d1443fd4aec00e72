/** Plain JSON values as decoded: what merge patches and cached objects are made of. */
export type JsonObject = Record<string, unknown>;

/** A JSON object: not null, not an array. */
export const isJsonObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Deep equality of JSON values, a key set to undefined counting as absent. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b))
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameJson(x, b[i]));
  return isJsonObject(a) && isJsonObject(b) && sameKeys(a, b);
}

function sameKeys(a: JsonObject, b: JsonObject): boolean {
  for (const key in a) if (!sameJson(a[key], b[key])) return false;
  for (const key in b) if (!(key in a) && b[key] !== undefined) return false;
  return true;
}
