import { describe, expect, test } from "bun:test";
import { MAX_HELD_BYTES, MAX_HOLD_MS, WatchPace } from "./watch-pace.ts";

/** Each read: the events it brought (bytes, heartbeat or not) and the ms since the one before. */
interface Read {
  readonly afterMs: number;
  readonly events: readonly (readonly [number, boolean])[];
}

function paces(reads: readonly Read[]): number[] {
  let now = 1_000;
  const pace = new WatchPace(() => now);
  return reads.map(({ afterMs, events }) => {
    now += afterMs;
    for (const [bytes, heartbeat] of events) pace.heard(bytes, heartbeat);
    return pace.next();
  });
}

const beat = (bytes = 1_500): readonly [number, boolean] => [bytes, true];
const change = (bytes = 1_500): readonly [number, boolean] => [bytes, false];

describe("a watch's pace", () => {
  test.each<[string, Read[], number[]]>([
    ["nothing read yet: read on", [{ afterMs: 10, events: [] }], [0]],
    ["a few heartbeats: the longest pause", [{ afterMs: 40, events: [beat(), beat()] }], [MAX_HOLD_MS]],
    ["a change among heartbeats: read on", [{ afterMs: 40, events: [beat(), change(), beat()] }], [0]],
    ["a change alone: read on", [{ afterMs: 40, events: [change()] }], [0]],
    [
      "busy heartbeats: a pause that gathers about the most bytes held",
      [{ afterMs: 100, events: [beat(4 * MAX_HELD_BYTES)] }],
      [25],
    ],
    ["no time passed: read on", [{ afterMs: 0, events: [beat()] }], [0]],
    [
      "each read counted afresh",
      [
        { afterMs: 40, events: [change()] },
        { afterMs: 40, events: [beat()] },
        { afterMs: 40, events: [] },
        { afterMs: 300, events: [beat(), change()] },
      ],
      [0, MAX_HOLD_MS, 0, 0],
    ],
  ])("%s", (_, reads, expected) => {
    expect(paces(reads)).toEqual(expected);
  });
});
