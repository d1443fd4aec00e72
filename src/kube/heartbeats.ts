/**
 * A Node heartbeat told from its bytes, without decoding them. Each kubelet (or kwok) status heartbeat
 * reaches the informer as a whole Node, and decoding it (bytes to text, `JSON.parse`, then `trimNode`)
 * was the largest part of what one heartbeat cost the manager, for a Node that trims to the one cached
 * but for its resourceVersion. (The layout rule for the resourceVersion is `writtenVersion`'s in api.ts,
 * read here from bytes.)
 *
 * The digest of a Node is a hash of its object's bytes, from `metadata` to the end, without the three
 * things a heartbeat changes: the resourceVersion, its conditions' `lastHeartbeatTime` and its managed
 * fields' `time`. Two Nodes with the same digest differ in nothing else, so once the first is decoded and
 * cached, the second is the cached Node at the newer resourceVersion (`trimNode` keeps neither of the
 * other two). A watch event's object and a list's item (which lacks only `kind` and `apiVersion`, before
 * `metadata`) have the same digest for the same Node, so the first heartbeat after a list is known too.
 * The layout read is the API server's: `metadata` opens with the name, then plain string fields up to the
 * resourceVersion, and ends with `managedFields`; after it come only `spec` and `status`, whose keys are
 * fixed by the API (a label or annotation key, which could be anything, comes before). Any other layout
 * has no digest and is decoded.
 */

export type Digest = number | bigint;

export interface Fingerprint {
  readonly type: "ADDED" | "MODIFIED";
  readonly key: string;
  readonly resourceVersion: string;
  readonly digest: Digest;
}

/** How an informer tells heartbeats: its watch events' fingerprints, and the digests of a list's items. */
export interface Fingerprints {
  event(line: Buffer): Fingerprint | undefined;
  /** By name, the digest of each item of a list answer that has one (the items of a Node list). */
  items(list: Buffer): Map<string, Digest>;
}

const TYPES = [
  ["ADDED", Buffer.from('{"type":"ADDED","object":{')],
  ["MODIFIED", Buffer.from('{"type":"MODIFIED","object":{')],
] as const;
const NAME = '"metadata":{"name":"';
const VERSION = '"resourceVersion":"';
const MANAGED_FIELDS = ',"managedFields":[';
/** The end of both keys a heartbeat changes the value of after `managedFields` begins (and of others). */
const TIME_KEY_END = 'ime":"';
const TIME = Buffer.from('"time":"');
const HEARTBEAT = Buffer.from('"lastHeartbeatTime":"');
const ITEMS = Buffer.from(`"items":[{${NAME}`);
/** Between two items of a Node list: only an object whose first key is `metadata` and its first the name. */
const NEXT_ITEM = Buffer.from(`},{${NAME}`);
/** The end of a list answer: its last item, its items, itself. */
const LIST_END = Buffer.from("}]}");
const QUOTE = 0x22;
const CLOSE = 0x7d;
/** `{`, `}`, `[`, `]` and `\`: none may come between the name and the resourceVersion. */
const NESTING = new Set([0x7b, 0x7d, 0x5b, 0x5d, 0x5c]);

/** The fingerprint of a Node's ADDED or MODIFIED event, or undefined (another event, another layout). */
export function fingerprintOf(line: Buffer): Fingerprint | undefined {
  const type = TYPES.find(([, prefix]) => startsWith(line, prefix, 0))?.[0];
  // The object's closing brace, then the event's.
  const close = line.length - 2;
  if (type === undefined || line[close] !== CLOSE || line[close + 1] !== CLOSE) return undefined;
  const object = objectDigest(line, line.indexOf(NAME), close);
  return object && { type, ...object };
}

/**
 * The digest of each item of a Node list answer (`kind`, `apiVersion`, `metadata`, then `items` last),
 * by name. An item is found by its first bytes, `{"metadata":{"name":"`, after the previous one's `},`:
 * no Node field holds an object of that shape, and a string cannot hold its quotes unescaped.
 */
export function itemDigests(list: Buffer): Map<string, Digest> {
  const digests = new Map<string, Digest>();
  const items = list.indexOf(ITEMS);
  if (items < 0) return digests;
  for (let at = items + ITEMS.length - NAME.length; ;) {
    const next = list.indexOf(NEXT_ITEM, at);
    const close = next >= 0 ? next : lastItemClose(list);
    const item = close < 0 ? undefined : objectDigest(list, at, close);
    if (item) digests.set(item.key, item.digest);
    if (next < 0) return digests;
    at = next + NEXT_ITEM.length - NAME.length;
  }
}

export const NODE_FINGERPRINTS: Fingerprints = { event: fingerprintOf, items: itemDigests };

/** The closing brace of a list answer's last item, or -1 (not the end of a list of objects). */
function lastItemClose(list: Buffer): number {
  let end = list.length;
  while (end > 0 && list[end - 1]! <= 0x20) end--;
  const close = end - LIST_END.length;
  return startsWith(list, LIST_END, close) ? close : -1;
}

/**
 * The name, resourceVersion and digest of the object whose `"metadata":{"name":"` is at `at` and whose
 * closing brace is at `close`, or undefined (another layout).
 */
function objectDigest(bytes: Buffer, at: number, close: number): Omit<Fingerprint, "type"> | undefined {
  if (at < 0) return undefined;
  const nameAt = at + NAME.length;
  const nameEnd = bytes.indexOf(QUOTE, nameAt);
  const versionAt = nameEnd < 0 ? -1 : bytes.indexOf(VERSION, nameEnd);
  const versionEnd = versionAt < 0 ? -1 : bytes.indexOf(QUOTE, versionAt + VERSION.length);
  if (versionEnd < 0 || versionEnd > close || nests(bytes, nameAt, versionAt)) return undefined;
  const managed = bytes.indexOf(MANAGED_FIELDS, versionEnd);
  if (managed < 0 || managed > close) return undefined;
  const before = Bun.hash(bytes.subarray(versionEnd, managed), Bun.hash(bytes.subarray(at, versionAt)));
  return {
    key: bytes.toString("latin1", nameAt, nameEnd),
    resourceVersion: bytes.toString("latin1", versionAt + VERSION.length, versionEnd),
    digest: digestWithoutTimes(bytes, { from: managed, to: close }, before),
  };
}

/** The hash of bytes `from` to `to`, continuing `seed`, with every `time` and `lastHeartbeatTime` left out. */
function digestWithoutTimes(bytes: Buffer, range: { from: number; to: number }, seed: Digest): Digest {
  const { from, to } = range;
  let digest = seed;
  let start = from;
  for (let at = bytes.indexOf(TIME_KEY_END, from); at >= 0 && at < to; at = bytes.indexOf(TIME_KEY_END, at + 1)) {
    const valueAt = at + TIME_KEY_END.length;
    const keyAt = valueAt - TIME.length;
    const key = startsWith(bytes, TIME, keyAt) ? keyAt : valueAt - HEARTBEAT.length;
    if (key !== keyAt && !startsWith(bytes, HEARTBEAT, key)) continue;
    const valueEnd = bytes.indexOf(QUOTE, valueAt);
    if (valueEnd < 0 || valueEnd >= to) break;
    digest = Bun.hash(bytes.subarray(start, key), digest);
    start = valueEnd + 1;
    at = valueEnd;
  }
  return Bun.hash(bytes.subarray(start, to), digest);
}

function startsWith(bytes: Buffer, prefix: Buffer, at: number): boolean {
  return (
    at >= 0 &&
    bytes.length - at >= prefix.length &&
    bytes.compare(prefix, 0, prefix.length, at, at + prefix.length) === 0
  );
}

function nests(bytes: Buffer, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (NESTING.has(bytes[i]!)) return true;
  return false;
}
