/**
 * Writing with optimistic concurrency: build a patch from the latest object, send it with that object's
 * resourceVersion as a precondition (or `test` operations on just the fields the patch was built from),
 * and on Conflict read again and rebuild (client-go RetryOnConflict).
 */
import { backoff, jitter, sleep } from "../util/clock.ts";
import { isJsonObject, sameJson, type JsonObject } from "../util/json.ts";
import type { KubeApi, PatchType, Resource } from "./api.ts";
import { guardedJsonPatch } from "./json-patch.ts";
import type { KubeObject } from "./objects.ts";
import { isConflict, isInvalid } from "./transport.ts";

export interface ConflictBackoff {
  readonly steps: number;
  readonly baseMs: number;
}

/** client-go retry.DefaultRetry: 5 steps from 10 ms. */
export const DEFAULT_RETRY: ConflictBackoff = { steps: 5, baseMs: 10 };
/** Upstream's node-update backoff: 20 steps from 50 ms, jitter 1.0. */
export const NODE_UPDATE_RETRY: ConflictBackoff = { steps: 20, baseMs: 50 };

export async function retryOnConflict<T>(
  attempt: () => Promise<T>,
  policy: ConflictBackoff = DEFAULT_RETRY,
  retryable: (error: unknown) => boolean = isConflict,
): Promise<T> {
  for (let step = 1; ; step++) {
    try {
      return await attempt();
    } catch (error) {
      if (!retryable(error) || step >= policy.steps) throw error;
      await sleep(jitter(backoff(step - 1, policy.baseMs, 10_000), 1));
    }
  }
}

/** A merge patch that only applies if the object is still at `resourceVersion`. */
export function withPrecondition<T extends object>(
  resourceVersion: string | undefined,
  patch: T,
): T & { metadata?: { resourceVersion: string } } {
  if (!resourceVersion) return patch;
  const meta = (patch as { metadata?: object }).metadata ?? {};
  return { ...patch, metadata: { ...meta, resourceVersion } };
}

export interface FreshPatch<T extends KubeObject> {
  readonly api: KubeApi;
  readonly resource: Resource;
  /** The object as last seen (usually from the cache); the first attempt's precondition. */
  readonly from: T;
  /** The merge patch wanted against `obj`, or undefined when `obj` needs nothing. Pure. */
  readonly build: (obj: T) => object | undefined;
  /**
   * JSON pointers of the fields `build` read. With them the patch goes out as a JSON patch that tests
   * those fields instead of the resourceVersion (`json-patch.ts`), so a write to any other field meanwhile
   * costs nothing; a failed test reads the object again and rebuilds, as a Conflict does.
   */
  readonly guards?: readonly string[];
  readonly subresource?: string;
  readonly policy?: ConflictBackoff;
  /**
   * What the caller keeps of the written object (the informer's transform). Built from a cached object
   * it is already trimmed; after a Conflict it is built from a whole object read again, which this keeps
   * from living on through the caller's next awaits.
   */
  readonly keep?: (written: T) => T;
  /** The second write of a sync under way: its requests go ahead of waiting first writes. */
  readonly urgent?: boolean;
}

/** A JSON merge patch (RFC 7386) applied to `target`: objects merge, `null` removes, anything else replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isJsonObject(patch)) return patch;
  const out: JsonObject = isJsonObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = mergePatch(out[key], value);
  }
  return out;
}

/**
 * Read → build → merge patch with a resourceVersion precondition; on Conflict GET the object again and
 * rebuild from that. Resolves the written object, or undefined when the latest object needed nothing.
 * Cached objects are trimmed, so this never sends a whole object back (no PUT).
 *
 * The written object is the one the patch was built from with the patch applied, at the answer's
 * resourceVersion: with a resourceVersion precondition the API server applied it to exactly that version;
 * with guards, to a version that may differ in the fields not guarded, so the caller prefers the watch's
 * object once it has it. The answer
 * itself is not decoded (it is the whole object, managedFields included, and a burst of Node
 * initialisations writes two per Node); a mutating admission webhook's changes reach the cache with the
 * write's watch event, as every other change does.
 */
export async function patchWithPrecondition<T extends KubeObject>(p: FreshPatch<T>): Promise<T | undefined> {
  let current = p.from;
  let stale = false;
  const { name, namespace } = current.metadata;
  const reread = (): Promise<T> => p.api.get<T>(p.resource, name, { namespace, urgent: p.urgent });
  const attempt = async (): Promise<T | undefined> => {
    stale = false;
    const patch = p.build(current);
    if (patch === undefined) return undefined;
    const request = requestOf(p, current, patch);
    try {
      const resourceVersion = await p.api.patchVersion(p.resource, name, request.body, {
        namespace,
        subresource: p.subresource,
        type: request.type,
        urgent: p.urgent,
      });
      const written = mergePatch(current, patch) as T;
      written.metadata = { ...written.metadata, resourceVersion };
      return p.keep ? p.keep(written) : written;
    } catch (error) {
      if (isConflict(error)) current = await reread();
      else if (request.type === "json" && isInvalid(error)) {
        // A failed test and a field the API server refuses both answer 422: only a changed object retries.
        const fresh = await reread();
        const again = p.build(fresh);
        stale = again === undefined || !sameJson(requestOf(p, fresh, again), request);
        current = fresh;
      }
      throw error;
    }
  };
  return retryOnConflict(attempt, p.policy, (error) => stale || isConflict(error));
}

interface PatchRequest {
  readonly type: PatchType;
  readonly body: unknown;
}

/** The guarded JSON patch where guards are given and can say it all, else the merge patch with a version. */
function requestOf<T extends KubeObject>(p: FreshPatch<T>, current: T, patch: object): PatchRequest {
  const ops = p.guards && guardedJsonPatch(current, patch as JsonObject, p.guards);
  return ops
    ? { type: "json", body: ops }
    : { type: "merge", body: withPrecondition(current.metadata.resourceVersion, patch) };
}
