/**
 * A small generic REST client over the transport: one set of verbs for every resource, addressed by a
 * `Resource` descriptor. This is the only module that sends writes to the API server.
 */
import type { KubeObject } from "./objects.ts";
import type { Query, Request, Transport } from "./transport.ts";

export interface Resource {
  readonly group: string;
  readonly version: string;
  readonly plural: string;
  readonly kind: string;
  readonly namespaced: boolean;
}

const core = (plural: string, kind: string, namespaced: boolean): Resource => ({
  group: "",
  version: "v1",
  plural,
  kind,
  namespaced,
});

export const NODES = core("nodes", "Node", false);
export const SERVICES = core("services", "Service", true);
export const EVENTS = core("events", "Event", true);
export const NAMESPACES = core("namespaces", "Namespace", false);
export const SERVICE_ACCOUNTS = core("serviceaccounts", "ServiceAccount", true);
export const CONFIG_MAPS = core("configmaps", "ConfigMap", true);
export const LEASES: Resource = {
  group: "coordination.k8s.io",
  version: "v1",
  plural: "leases",
  kind: "Lease",
  namespaced: true,
};
export const TOKEN_REVIEWS: Resource = {
  group: "authentication.k8s.io",
  version: "v1",
  plural: "tokenreviews",
  kind: "TokenReview",
  namespaced: false,
};
export const SUBJECT_ACCESS_REVIEWS: Resource = {
  group: "authorization.k8s.io",
  version: "v1",
  plural: "subjectaccessreviews",
  kind: "SubjectAccessReview",
  namespaced: false,
};
export const SELF_SUBJECT_ACCESS_REVIEWS: Resource = {
  group: "authorization.k8s.io",
  version: "v1",
  plural: "selfsubjectaccessreviews",
  kind: "SelfSubjectAccessReview",
  namespaced: false,
};

export type PatchType = "merge" | "strategic" | "json";

const PATCH_CONTENT_TYPES: Readonly<Record<PatchType, string>> = {
  merge: "application/merge-patch+json",
  strategic: "application/strategic-merge-patch+json",
  json: "application/json-patch+json",
};

export interface Target {
  readonly namespace?: string;
  readonly subresource?: string;
  readonly signal?: AbortSignal;
  readonly dryRun?: boolean;
  /** A background write (Events): sent only from spare rate-limit tokens, after the controllers' writes. */
  readonly background?: boolean;
  /** The second write of a sync under way: ahead of waiting first writes (transport's `urgent`). */
  readonly urgent?: boolean;
}

export interface ListOptions {
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  readonly resourceVersion?: string;
  readonly limit?: number;
  readonly continue?: string;
  readonly signal?: AbortSignal;
}

export interface ObjectList<T> {
  readonly metadata: { readonly resourceVersion: string; readonly continue?: string };
  readonly items: T[];
}

export interface WatchOptions {
  readonly namespace?: string;
  readonly resourceVersion: string;
  readonly timeoutSeconds: number;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  readonly signal: AbortSignal;
  /** How long to leave the watch's connection unread once all it has read is used up (watch-pace.ts). */
  readonly pace?: () => number;
}

export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";

export interface WatchEvent<T> {
  readonly type: WatchEventType;
  readonly object: T;
}

export interface KubeApi {
  readonly server: string;
  get<T extends KubeObject>(res: Resource, name: string, target?: Target): Promise<T>;
  list<T extends KubeObject>(res: Resource, options?: ListOptions): Promise<ObjectList<T>>;
  /** `list`, the answer as text, not decoded (a caller that reads its bytes as well). */
  listText(res: Resource, options?: ListOptions): Promise<string>;
  watch<T extends KubeObject>(res: Resource, options: WatchOptions): AsyncGenerator<WatchEvent<T>>;
  /** `watch`, each event as the bytes of its JSON, not decoded (a caller that may not need all of it). */
  watchLines(res: Resource, options: WatchOptions): AsyncGenerator<Buffer>;
  create<T>(res: Resource, body: T, target?: Target): Promise<T>;
  /** `create`, resolving only the created object's resourceVersion, as `patchVersion` does for a patch. */
  createVersion(res: Resource, body: unknown, target?: Target): Promise<string>;
  update<T extends KubeObject>(res: Resource, body: T, target?: Target): Promise<T>;
  patch<T extends KubeObject>(
    res: Resource,
    name: string,
    patch: unknown,
    target: Target & { type: PatchType },
  ): Promise<T>;
  /**
   * `patch`, resolving only the written object's resourceVersion: the answer (asked for as the object's
   * metadata alone, `METADATA_ONLY`) is not decoded. For a caller that knows what it wrote, such as a
   * patch with a resourceVersion precondition applied to the object it was built from.
   */
  patchVersion(res: Resource, name: string, patch: unknown, target: Target & { type: PatchType }): Promise<string>;
  delete(
    res: Resource,
    name: string,
    target?: Target & { preconditions?: { uid?: string; resourceVersion?: string } },
  ): Promise<void>;
}

export function resourcePath(res: Resource, namespace?: string, name?: string, subresource?: string): string {
  const base = res.group === "" ? `/api/${res.version}` : `/apis/${res.group}/${res.version}`;
  const ns = res.namespaced && namespace ? `/namespaces/${encodeURIComponent(namespace)}` : "";
  const obj = name === undefined ? "" : `/${encodeURIComponent(name)}`;
  const sub = subresource ? `/${subresource}` : "";
  return `${base}${ns}/${res.plural}${obj}${sub}`;
}

function dryRun(target: Target | undefined): Query {
  return target?.dryRun ? { dryRun: "All" } : {};
}

export function createKubeApi(transport: Transport): KubeApi {
  return {
    server: transport.server,
    get: (res, name, target) =>
      transport.json({
        method: "GET",
        path: resourcePath(res, target?.namespace, name, target?.subresource),
        signal: target?.signal,
        urgent: target?.urgent,
      }),
    list: (res, o = {}) => transport.json(listRequest(res, o)),
    listText: (res, o = {}) => transport.text(listRequest(res, o)),
    watch: (res, o) => watchEvents(transport, res, o),
    watchLines: (res, o) => watchLines(transport, res, o),
    create: (res, body, target) => transport.json(createRequest(res, body, target)),
    createVersion: async (res, body, target) =>
      writtenVersion(await transport.text({ ...createRequest(res, body, target), accept: METADATA_ONLY })),
    update: (res, body, target) =>
      transport.json({
        method: "PUT",
        path: resourcePath(res, body.metadata.namespace, body.metadata.name, target?.subresource),
        query: dryRun(target),
        body,
        signal: target?.signal,
      }),
    patch: (res, name, patch, target) => transport.json(patchRequest(res, name, patch, target)),
    patchVersion: async (res, name, patch, target) =>
      writtenVersion(await transport.text({ ...patchRequest(res, name, patch, target), accept: METADATA_ONLY })),
    async delete(res, name, target): Promise<void> {
      const body = target?.preconditions
        ? { kind: "DeleteOptions", apiVersion: "v1", preconditions: target.preconditions }
        : undefined;
      await transport.json({
        method: "DELETE",
        path: resourcePath(res, target?.namespace, name),
        query: dryRun(target),
        body,
        signal: target?.signal,
      });
    },
  };
}

function createRequest(res: Resource, body: unknown, target: Target | undefined): Request {
  return {
    method: "POST",
    path: resourcePath(res, target?.namespace ?? namespaceOf(body), undefined, target?.subresource),
    query: dryRun(target),
    body,
    signal: target?.signal,
    background: target?.background,
  };
}

function listRequest(res: Resource, o: ListOptions): Request {
  return {
    method: "GET",
    path: resourcePath(res, o.namespace),
    query: {
      labelSelector: o.labelSelector,
      fieldSelector: o.fieldSelector,
      resourceVersion: o.resourceVersion,
      limit: o.limit,
      continue: o.continue,
    },
    signal: o.signal,
    timeoutMs: 60_000,
  };
}

function patchRequest(res: Resource, name: string, patch: unknown, target: Target & { type: PatchType }): Request {
  return {
    method: "PATCH",
    path: resourcePath(res, target.namespace, name, target.subresource),
    query: dryRun(target),
    body: patch,
    contentType: PATCH_CONTENT_TYPES[target.type],
    signal: target.signal,
    background: target.background,
    urgent: target.urgent,
  };
}

/**
 * The answer to a patch whose caller reads only the resourceVersion: the object's metadata alone
 * (PartialObjectMetadata, served since Kubernetes 1.15), else the object. A Node's spec and status are
 * most of its bytes: the API server encodes and sends about a third as much (measured on v1.36 with curl,
 * pretty-printed: 1.6 of 5.6 KB for a bench Node; less still of a kubelet's, with its images).
 */
export const METADATA_ONLY = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json";

const METADATA_KEY = '"metadata":{';
const VERSION_KEY = '"resourceVersion":"';

/**
 * The resourceVersion of the object in an answer, read without decoding the rest. The API server writes
 * `kind`, `apiVersion`, then `metadata`, whose fields before `resourceVersion` (name, generateName,
 * namespace, selfLink, uid) are plain strings: the first `"resourceVersion":"` after `"metadata":{`, with
 * no brace or bracket in between, is the object's own (a quote inside a string is escaped, so no value
 * can hold that text). Any other layout (pretty-printed, reordered, no version) is decoded in full.
 */
export function writtenVersion(answer: string): string {
  const metadata = answer.indexOf(METADATA_KEY);
  const key = metadata < 0 ? -1 : answer.indexOf(VERSION_KEY, metadata);
  const start = key + VERSION_KEY.length;
  const end = key < 0 ? -1 : answer.indexOf('"', start);
  if (end > start && !/[{}[\]]/.test(answer.slice(metadata + METADATA_KEY.length, key)))
    return copyOf(answer, start, end);
  return (JSON.parse(answer) as Partial<KubeObject>).metadata?.resourceVersion ?? "";
}

/** Characters `start` to `end` of `text` as a string of their own: a slice would keep all of `text` alive. */
function copyOf(text: string, start: number, end: number): string {
  const codes: number[] = [];
  for (let i = start; i < end; i++) codes.push(text.charCodeAt(i));
  return String.fromCharCode(...codes);
}

function namespaceOf(body: unknown): string | undefined {
  return (body as Partial<KubeObject> | undefined)?.metadata?.namespace;
}

async function* watchEvents<T>(transport: Transport, res: Resource, o: WatchOptions): AsyncGenerator<WatchEvent<T>> {
  for await (const line of watchLines(transport, res, o)) yield JSON.parse(line.toString("utf8")) as WatchEvent<T>;
}

async function* watchLines(transport: Transport, res: Resource, o: WatchOptions): AsyncGenerator<Buffer> {
  const stream = await transport.stream({
    method: "GET",
    path: resourcePath(res, o.namespace),
    query: {
      watch: 1,
      allowWatchBookmarks: true,
      resourceVersion: o.resourceVersion,
      timeoutSeconds: o.timeoutSeconds,
      labelSelector: o.labelSelector,
      fieldSelector: o.fieldSelector,
    },
    signal: o.signal,
    pace: o.pace,
  });
  yield* lines(stream);
}

const NEWLINE = 0x0a;
const SPACE = 0x20;

/** A line starting with a visible byte (an event starts with `{`) is not blank; only others are trimmed. */
const notBlank = (line: Buffer): boolean =>
  line.length > 0 && (line[0]! > SPACE || line.toString("utf8").trim() !== "");

/**
 * Splits a byte stream into its non-empty lines, as bytes (watch events are newline-delimited JSON): a
 * line is found in the bytes and joined once, whole (a character cut between chunks included), however
 * many chunks it came in; the caller decodes what it needs of it.
 */
export async function* lines(stream: ReadableStream<Uint8Array>): AsyncGenerator<Buffer> {
  const reader = stream.getReader();
  /** The bytes of a line not complete yet. */
  const pending: Buffer[] = [];
  try {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
      yield* linesOf(asBuffer(chunk.value), pending);
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/** The non-blank lines `bytes` completes, the first after `pending`; bytes after its last newline go to `pending`. */
function* linesOf(bytes: Buffer, pending: Buffer[]): Generator<Buffer> {
  let start = 0;
  for (let end = bytes.indexOf(NEWLINE); end >= 0; end = bytes.indexOf(NEWLINE, start)) {
    const tail = bytes.subarray(start, end);
    const line = pending.length === 0 ? tail : Buffer.concat([...pending.splice(0), tail]);
    start = end + 1;
    if (notBlank(line)) yield line;
  }
  if (start < bytes.length) pending.push(bytes.subarray(start));
}

const asBuffer = (bytes: Uint8Array): Buffer =>
  Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
