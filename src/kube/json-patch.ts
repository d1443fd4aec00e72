/**
 * A merge patch sent as a JSON patch (RFC 6902) whose `test` operations guard only the fields its decision
 * read, in place of a resourceVersion that guards the whole object. The API server applies it to the
 * newest object unless one of those fields changed, so a kubelet's status heartbeat or another
 * controller's condition written meanwhile no longer costs a Conflict, a read and a second write.
 * Pure.
 */
import { isJsonObject, type JsonObject } from "../util/json.ts";

export type JsonPatchOp =
  | { readonly op: "test" | "add"; readonly path: string; readonly value: unknown }
  | { readonly op: "remove"; readonly path: string };

/** RFC 6901 escaping, skipped for the usual key that has neither `~` nor `/`. */
const escapeKey = (key: string): string =>
  key.includes("~") || key.includes("/") ? key.replaceAll("~", "~0").replaceAll("/", "~1") : key;
const unescapeKey = (key: string): string =>
  key.includes("~") ? key.replaceAll("~1", "/").replaceAll("~0", "~") : key;

/** A JSON pointer (RFC 6901) from unescaped keys: `pointer("metadata", "labels")` is `/metadata/labels`. */
export function pointer(...keys: readonly string[]): string {
  let path = "";
  for (const key of keys) path += `/${escapeKey(key)}`;
  return path;
}

/** The unescaped keys of a JSON pointer: `pointer(...keysOf(path))` is `path`. */
export function keysOf(path: string): string[] {
  return path.split("/").slice(1).map(unescapeKey);
}

/** The value at a JSON pointer, or undefined where any step of it is absent. */
export function valueAt(doc: unknown, path: string): unknown {
  let at = doc;
  for (const key of keysOf(path)) {
    if (Array.isArray(at)) at = at[Number(key)];
    else if (isJsonObject(at)) at = at[key];
    else return undefined;
  }
  return at;
}

/**
 * `merge` (a JSON merge patch against `target`) as JSON patch operations behind a `test` of each guard
 * present in `target` (RFC 6902 cannot test that a member is absent: an absent guard is not tested).
 * Undefined where the merge patch fills an object `target` lacks: a JSON patch would replace an object
 * created meanwhile, which only a resourceVersion precondition can rule out.
 */
export function guardedJsonPatch(
  target: unknown,
  merge: JsonObject,
  guards: readonly string[],
): JsonPatchOp[] | undefined {
  const ops: JsonPatchOp[] = [];
  for (const path of guards) {
    const value = valueAt(target, path);
    if (value !== undefined) ops.push({ op: "test", path, value });
  }
  return addMergeOps(ops, target, merge, "") ? ops : undefined;
}

function addMergeOps(ops: JsonPatchOp[], target: unknown, merge: JsonObject, prefix: string): boolean {
  for (const [key, value] of Object.entries(merge)) {
    if (value === undefined) continue;
    const path = prefix + pointer(key);
    const current = isJsonObject(target) ? target[key] : undefined;
    if (value === null) {
      if (current !== undefined) ops.push({ op: "remove", path });
    } else if (!isJsonObject(value)) ops.push({ op: "add", path, value });
    else if (!isJsonObject(current) || !addMergeOps(ops, current, value, path)) return false;
  }
  return true;
}
