/**
 * A Node heartbeat told from its watch event's bytes, without decoding them. Each kubelet (or kwok) status
 * heartbeat reaches the informer as a whole Node, and decoding it (bytes to text, `JSON.parse`, then
 * `trimNode`) was the largest part of what one heartbeat cost the manager, for a Node that trims to the
 * one cached but for its resourceVersion. (The layout rule for the resourceVersion is `writtenVersion`'s
 * in api.ts, read here from bytes.)
 *
 * The fingerprint of an event is a hash of its bytes without the three things a heartbeat changes: the
 * object's resourceVersion, its conditions' `lastHeartbeatTime` and its managed fields' `time`. Two
 * events of a Node with the same fingerprint differ in nothing else, so once the first is decoded and
 * cached, the second is the cached Node at the newer resourceVersion (`trimNode` keeps neither of the
 * other two). The layout read is the API server's: `metadata` opens with the name, then plain string
 * fields up to the resourceVersion, and ends with `managedFields`; after it come only `spec` and
 * `status`, whose keys are fixed by the API (a label or annotation key, which could be anything, comes
 * before). Any other layout has no fingerprint and is decoded.
 */

export interface Fingerprint {
  readonly type: "ADDED" | "MODIFIED";
  readonly key: string;
  readonly resourceVersion: string;
  readonly digest: number | bigint;
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
const QUOTE = 0x22;
/** `{`, `}`, `[`, `]` and `\`: none may come between the name and the resourceVersion. */
const NESTING = new Set([0x7b, 0x7d, 0x5b, 0x5d, 0x5c]);

/** The fingerprint of a Node's ADDED or MODIFIED event, or undefined (another event, another layout). */
export function fingerprintOf(line: Buffer): Fingerprint | undefined {
  const type = TYPES.find(([, prefix]) => startsWith(line, prefix, 0))?.[0];
  if (type === undefined) return undefined;
  const nameAt = line.indexOf(NAME) + NAME.length;
  const nameEnd = nameAt < NAME.length ? -1 : line.indexOf(QUOTE, nameAt);
  const versionAt = nameEnd < 0 ? -1 : line.indexOf(VERSION, nameEnd);
  const versionEnd = versionAt < 0 ? -1 : line.indexOf(QUOTE, versionAt + VERSION.length);
  if (versionEnd < 0 || nests(line, nameAt, versionAt)) return undefined;
  const managed = line.indexOf(MANAGED_FIELDS, versionEnd);
  if (managed < 0) return undefined;
  const before = Bun.hash(line.subarray(versionEnd, managed), Bun.hash(line.subarray(0, versionAt)));
  return {
    type,
    key: line.toString("latin1", nameAt, nameEnd),
    resourceVersion: line.toString("latin1", versionAt + VERSION.length, versionEnd),
    digest: digestWithoutTimes(line, managed, before),
  };
}

/** The hash of `line` from `from` on, continuing `seed`, with every `time` and `lastHeartbeatTime` left out. */
function digestWithoutTimes(line: Buffer, from: number, seed: number | bigint): number | bigint {
  let digest = seed;
  let start = from;
  for (let at = line.indexOf(TIME_KEY_END, from); at >= 0; at = line.indexOf(TIME_KEY_END, at + 1)) {
    const valueAt = at + TIME_KEY_END.length;
    const keyAt = valueAt - TIME.length;
    const key = startsWith(line, TIME, keyAt) ? keyAt : valueAt - HEARTBEAT.length;
    if (key !== keyAt && !startsWith(line, HEARTBEAT, key)) continue;
    const valueEnd = line.indexOf(QUOTE, valueAt);
    if (valueEnd < 0) break;
    digest = Bun.hash(line.subarray(start, key), digest);
    start = valueEnd + 1;
    at = valueEnd;
  }
  return Bun.hash(line.subarray(start), digest);
}

function startsWith(line: Buffer, prefix: Buffer, at: number): boolean {
  return (
    at >= 0 && line.length - at >= prefix.length && line.compare(prefix, 0, prefix.length, at, at + prefix.length) === 0
  );
}

function nests(line: Buffer, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (NESTING.has(line[i]!)) return true;
  return false;
}
