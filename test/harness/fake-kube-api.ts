/**
 * The one in-memory KubeApi of the sync-level unit tests. Objects are stored per resource under their
 * cache key (`namespace/name`, or `name` when cluster-scoped), in maps a test may also hand to a lister,
 * so the API's storage and the informer's cache can be one. It applies what the API server would: JSON
 * merge patches, strategic merge patches for the lists the controllers patch (`finalizers` as a set with
 * `$deleteFromPrimitiveList`, `conditions` by `type`), JSON patches (a failed `test` answers 422 as the API
 * server does), the resourceVersion precondition of a patch (409 Conflict), the UID precondition of a
 * delete, and an object being deleted goes once its last finalizer does. Every request is logged and every
 * write recorded with its body; a test can fail the next request matching a pattern. Only the verbs the
 * controllers use are implemented.
 */
import type { KubeApi, PatchType, Resource, Target } from "../../src/kube/api.ts";
import type { KubeObject } from "../../src/kube/objects.ts";
import { keysOf, pointer, valueAt, type JsonPatchOp } from "../../src/kube/json-patch.ts";
import { mergePatch } from "../../src/kube/patch.ts";
import { isJsonObject, sameJson, type JsonObject } from "../../src/util/json.ts";
import { KubeApiError } from "../../src/kube/transport.ts";

export interface RecordedWrite {
  readonly verb: "CREATE" | "PATCH" | "DELETE";
  /** `plural[/subresource]`. */
  readonly resource: string;
  readonly namespace?: string;
  readonly name: string;
  readonly subresource?: string;
  /** The body of a PATCH (or a CREATE), as sent; a JSON patch's operations under `ops`. */
  readonly patch?: Record<string, unknown>;
}

export interface FakeKubeApi extends KubeApi {
  /** `VERB resource[/subresource] name`, in order, reads included. */
  readonly requests: string[];
  /** The writes, in order, with their bodies. */
  readonly writes: RecordedWrite[];
  /** The live storage of one resource, by cache key: what a test seeds and a lister may read. */
  store<T extends KubeObject>(res: Resource): Map<string, T>;
  /** Stores `obj` as the API server would after a write (a new resourceVersion); returns a copy. */
  put<T extends KubeObject>(res: Resource, obj: T): T;
  stored(res: Resource, name: string, namespace?: string): KubeObject | undefined;
  /** Fails the next request whose log line matches `pattern` with `error`, once. */
  failNext(pattern: RegExp, error: Error): void;
}

const DELETE_FROM = "$deleteFromPrimitiveList/";

/** The strategic merge rules of the fields the controllers patch; every other field as a merge patch. */
function strategicPatch(target: unknown, patch: unknown): unknown {
  if (!isJsonObject(patch)) return patch;
  const out: JsonObject = isJsonObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith(DELETE_FROM)) continue;
    if (value === null) delete out[key];
    else if (key === "finalizers") out[key] = [...new Set([...asList(out[key]), ...asList(value)])];
    else if (key === "conditions") out[key] = mergeByType(asList(out[key]), asList(value));
    else out[key] = strategicPatch(out[key], value);
  }
  for (const [key, value] of Object.entries(patch)) {
    if (!key.startsWith(DELETE_FROM)) continue;
    const field = key.slice(DELETE_FROM.length);
    const removed = new Set(asList(value));
    out[field] = asList(out[field]).filter((item) => !removed.has(item));
  }
  return out;
}

const asList = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

function mergeByType(current: readonly unknown[], patch: readonly unknown[]): unknown[] {
  const typeOf = (item: unknown): unknown => (isJsonObject(item) ? item.type : undefined);
  const merged = current.map((item) => {
    const update = patch.find((p) => typeOf(p) === typeOf(item));
    return update === undefined ? item : mergePatch(item, update);
  });
  return [...merged, ...patch.filter((p) => !current.some((item) => typeOf(item) === typeOf(p)))];
}

/** The API server's answer to a JSON patch that cannot apply (a failed `test`, a missing member). */
const rejected = (): KubeApiError =>
  new KubeApiError(422, "Invalid", "the server rejected our request due to an error in our request");

/** RFC 6902 `test`, `add` and `remove` on object members, as the controllers send them. */
function jsonPatch(current: KubeObject, ops: readonly JsonPatchOp[]): KubeObject {
  const out = structuredClone(current) as unknown as JsonObject;
  for (const op of ops) {
    const keys = keysOf(op.path);
    const last = keys.pop() ?? "";
    const parent = valueAt(out, pointer(...keys));
    if (!isJsonObject(parent)) throw rejected();
    if (op.op === "test" && !sameJson(parent[last], op.value)) throw rejected();
    if (op.op === "add") parent[last] = structuredClone(op.value);
    if (op.op === "remove") {
      if (!(last in parent)) throw rejected();
      delete parent[last];
    }
  }
  return out as unknown as KubeObject;
}

function applyPatch(current: KubeObject, patch: unknown, type: PatchType): KubeObject {
  if (type === "json") return jsonPatch(current, patch as JsonPatchOp[]);
  return (type === "strategic" ? strategicPatch(current, patch) : mergePatch(current, patch)) as KubeObject;
}

const notFound = (res: Resource, name: string): KubeApiError =>
  new KubeApiError(404, "NotFound", `${res.plural} "${name}" not found`);
const conflict = (res: Resource, name: string): KubeApiError =>
  new KubeApiError(
    409,
    "Conflict",
    `Operation cannot be fulfilled on ${res.plural} "${name}": the object has been modified`,
  );
const unsupported = (): Promise<never> => Promise.reject(new Error("not implemented by the fake KubeApi"));
const cacheKey = (name: string, namespace?: string): string => (namespace ? `${namespace}/${name}` : name);
const resourceOf = (res: Resource, target?: Target): string =>
  `${res.plural}${target?.subresource ? `/${target.subresource}` : ""}`;

const noWatch = (): never => {
  throw new Error("not implemented by the fake KubeApi");
};

export function fakeKubeApi(): FakeKubeApi {
  const stores = new Map<string, Map<string, KubeObject>>();
  const requests: string[] = [];
  const writes: RecordedWrite[] = [];
  const failures: { pattern: RegExp; error: Error }[] = [];
  let revision = 100;
  const store = <T extends KubeObject>(res: Resource): Map<string, T> => {
    const found = stores.get(res.plural) ?? new Map<string, KubeObject>();
    stores.set(res.plural, found);
    return found as Map<string, T>;
  };
  /** Logs the request; answers the failure injected for it, if any. */
  const record = (line: string): Error | undefined => {
    requests.push(line);
    const i = failures.findIndex((f) => f.pattern.test(line));
    return i < 0 ? undefined : failures.splice(i, 1)[0]?.error;
  };
  const put = <T extends KubeObject>(res: Resource, obj: T): T => {
    const key = cacheKey(obj.metadata.name, obj.metadata.namespace);
    const stored = structuredClone({ ...obj, metadata: { ...obj.metadata, resourceVersion: String(++revision) } });
    const gone = stored.metadata.deletionTimestamp !== undefined && (stored.metadata.finalizers ?? []).length === 0;
    if (gone) store(res).delete(key);
    else store(res).set(key, stored);
    return structuredClone(stored);
  };
  const find = (res: Resource, name: string, target?: Target): KubeObject | undefined =>
    store(res).get(cacheKey(name, target?.namespace));
  return {
    server: "https://fake",
    requests,
    writes,
    store,
    put,
    stored: (res, name, namespace) => store(res).get(cacheKey(name, namespace)),
    failNext: (pattern, error) => void failures.push({ pattern, error }),
    get<T extends KubeObject>(res: Resource, name: string, target?: Target): Promise<T> {
      const injected = record(`GET ${resourceOf(res, target)} ${name}`);
      if (injected) return Promise.reject(injected);
      const obj = find(res, name, target);
      return obj ? Promise.resolve(structuredClone(obj) as T) : Promise.reject(notFound(res, name));
    },
    create<T>(res: Resource, body: T, target?: Target): Promise<T> {
      const obj = body as KubeObject;
      const namespace = target?.namespace ?? obj.metadata.namespace;
      const injected = record(`CREATE ${resourceOf(res, target)} ${obj.metadata.name}`);
      writes.push({
        verb: "CREATE",
        resource: resourceOf(res, target),
        namespace,
        name: obj.metadata.name,
        patch: body as JsonObject,
      });
      if (injected) return Promise.reject(injected);
      if (find(res, obj.metadata.name, { namespace }))
        return Promise.reject(
          new KubeApiError(409, "AlreadyExists", `${res.plural} "${obj.metadata.name}" already exists`),
        );
      return Promise.resolve(put(res, { ...obj, metadata: { ...obj.metadata, namespace } }) as T);
    },
    patch<T extends KubeObject>(
      res: Resource,
      name: string,
      patch: unknown,
      target: Target & { type: PatchType },
    ): Promise<T> {
      const injected = record(`PATCH ${resourceOf(res, target)} ${name}`);
      const { namespace, subresource } = target;
      writes.push({
        verb: "PATCH",
        resource: resourceOf(res, target),
        namespace,
        name,
        subresource,
        patch: Array.isArray(patch) ? { ops: patch } : (patch as JsonObject),
      });
      if (injected) return Promise.reject(injected);
      const current = find(res, name, target);
      if (!current) return Promise.reject(notFound(res, name));
      const wanted = (patch as { metadata?: { resourceVersion?: string } }).metadata?.resourceVersion;
      if (wanted !== undefined && wanted !== current.metadata.resourceVersion)
        return Promise.reject(conflict(res, name));
      try {
        return Promise.resolve(put(res, applyPatch(current, patch, target.type)) as T);
      } catch (error) {
        return Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
    },
    async createVersion(res: Resource, body: unknown, target?: Target) {
      const created = await this.create(res, body as KubeObject, target);
      return created.metadata.resourceVersion ?? "";
    },
    async patchVersion(res: Resource, name: string, patch: unknown, target: Target & { type: PatchType }) {
      const written = await this.patch(res, name, patch, target);
      return written.metadata.resourceVersion ?? "";
    },
    delete(res: Resource, name: string, target?: Target & { preconditions?: { uid?: string } }): Promise<void> {
      const uid = target?.preconditions?.uid;
      const injected = record(`DELETE ${resourceOf(res, target)} ${name}${uid ? ` (uid ${uid})` : ""}`);
      writes.push({ verb: "DELETE", resource: resourceOf(res, target), namespace: target?.namespace, name });
      if (injected) return Promise.reject(injected);
      const current = find(res, name, target);
      if (!current) return Promise.reject(notFound(res, name));
      if (uid && uid !== current.metadata.uid)
        return Promise.reject(new KubeApiError(409, "Conflict", "Precondition failed: UID"));
      store(res).delete(cacheKey(name, target?.namespace));
      return Promise.resolve();
    },
    list: unsupported,
    listText: unsupported,
    watch: noWatch,
    watchLines: noWatch,
    update: unsupported,
  };
}
