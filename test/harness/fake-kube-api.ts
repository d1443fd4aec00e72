/**
 * An in-memory KubeApi for sync-level unit tests: objects by resource and name, JSON merge patches with
 * the resourceVersion precondition the real API server enforces (409 Conflict), deletes with a UID
 * precondition, and a log of every request. Only the verbs the controllers use are implemented.
 */
import type { KubeApi, Resource } from "../../src/kube/api.ts";
import type { KubeObject } from "../../src/kube/objects.ts";
import { KubeApiError } from "../../src/kube/transport.ts";

export interface FakeKubeApi extends KubeApi {
  /** `VERB resource[/subresource] name`, in order. */
  readonly requests: string[];
  put(res: Resource, obj: KubeObject): KubeObject;
  stored(res: Resource, name: string): KubeObject | undefined;
  /** Fails the next request whose log line matches `pattern` with `error`, once. */
  failNext(pattern: RegExp, error: Error): void;
}

function mergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== "object" || patch === null || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> = typeof target === "object" && target !== null && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = mergePatch(out[key], value);
  }
  return out;
}

const notFound = (res: Resource, name: string): KubeApiError => new KubeApiError(404, "NotFound", `${res.plural} "${name}" not found`);
const unsupported = (): Promise<never> => Promise.reject(new Error("not implemented by the fake KubeApi"));

export function fakeKubeApi(): FakeKubeApi {
  const objects = new Map<string, KubeObject>();
  const requests: string[] = [];
  const failures: { pattern: RegExp; error: Error }[] = [];
  let revision = 100;
  /** Logs the request; resolves the injected failure for it, if any. */
  const record = (line: string): Error | undefined => {
    requests.push(line);
    const i = failures.findIndex((f) => f.pattern.test(line));
    return i < 0 ? undefined : failures.splice(i, 1)[0]?.error;
  };
  const key = (res: Resource, name: string): string => `${res.plural}/${name}`;
  const put = (res: Resource, obj: KubeObject): KubeObject => {
    const stored = structuredClone({ ...obj, metadata: { ...obj.metadata, resourceVersion: String(++revision) } });
    objects.set(key(res, obj.metadata.name), stored);
    return structuredClone(stored);
  };
  return {
    server: "https://fake",
    requests,
    put,
    stored: (res, name) => objects.get(key(res, name)),
    failNext: (pattern, error) => void failures.push({ pattern, error }),
    get<T extends KubeObject>(res: Resource, name: string): Promise<T> {
      const injected = record(`GET ${res.plural} ${name}`);
      if (injected) return Promise.reject(injected);
      const obj = objects.get(key(res, name));
      return obj ? Promise.resolve(structuredClone(obj) as T) : Promise.reject(notFound(res, name));
    },
    patch<T extends KubeObject>(res: Resource, name: string, patch: unknown, target: { subresource?: string }): Promise<T> {
      const injected = record(`PATCH ${res.plural}${target.subresource ? `/${target.subresource}` : ""} ${name}`);
      if (injected) return Promise.reject(injected);
      const current = objects.get(key(res, name));
      if (!current) return Promise.reject(notFound(res, name));
      const wanted = (patch as { metadata?: { resourceVersion?: string } }).metadata?.resourceVersion;
      if (wanted !== undefined && wanted !== current.metadata.resourceVersion) {
        return Promise.reject(new KubeApiError(409, "Conflict", `Operation cannot be fulfilled on ${res.plural} "${name}": the object has been modified`));
      }
      return Promise.resolve(put(res, mergePatch(current, patch) as KubeObject) as T);
    },
    delete(res: Resource, name: string, target?: { preconditions?: { uid?: string } }): Promise<void> {
      const uid = target?.preconditions?.uid;
      const injected = record(`DELETE ${res.plural} ${name}${uid ? ` (uid ${uid})` : ""}`);
      if (injected) return Promise.reject(injected);
      const current = objects.get(key(res, name));
      if (!current) return Promise.reject(notFound(res, name));
      if (uid && uid !== current.metadata.uid) return Promise.reject(new KubeApiError(409, "Conflict", "Precondition failed: UID"));
      objects.delete(key(res, name));
      return Promise.resolve();
    },
    list: unsupported,
    watch: () => {
      throw new Error("not implemented by the fake KubeApi");
    },
    create: unsupported,
    update: unsupported,
  };
}
