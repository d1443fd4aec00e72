import { describe, expect, test } from "bun:test";
import type { Node } from "../../kube/objects.ts";
import type { Clock } from "../../util/clock.ts";
import { PendingConditions } from "./pending-conditions.ts";
import type { NetworkCondition } from "./plan.ts";

/** A clock that moves only when told. */
function fakeClock(): Clock & { advance(ms: number): void } {
  let now = 0;
  return { now: () => now, sleep: () => Promise.resolve(), advance: (ms) => void (now += ms) };
}

const CREATED: NetworkCondition = { status: "False", reason: "RouteCreated", message: "" };
const FAILED: NetworkCondition = { status: "True", reason: "NoRouteCreated", message: "" };
const node = (uid: string, resourceVersion: string): Node => ({
  apiVersion: "v1",
  kind: "Node",
  metadata: { name: "a", uid, resourceVersion },
});

describe("PendingConditions", () => {
  test.each([
    { name: "the same condition, not yet shown", seen: [], asked: node("u1", "5"), condition: CREATED, want: true },
    { name: "another condition", seen: [], asked: node("u1", "5"), condition: FAILED, want: false },
    {
      name: "the watch showed our version",
      seen: [node("u1", "7")],
      asked: node("u1", "5"),
      condition: CREATED,
      want: false,
    },
    {
      name: "a later version is not ours",
      seen: [node("u1", "6")],
      asked: node("u1", "6"),
      condition: CREATED,
      want: true,
    },
    { name: "a Node of the same name, recreated", seen: [], asked: node("u2", "9"), condition: CREATED, want: false },
  ])("$name → $want", ({ seen, asked, condition, want }) => {
    const pending = new PendingConditions(fakeClock(), 10_000);
    pending.wrote(node("u1", "5"), "7", CREATED);
    for (const n of seen) pending.seen(n);
    expect(pending.covers(asked, condition)).toBe(want);
  });

  test("a write the watch never shows stops counting after one period, and is forgotten", () => {
    const clock = fakeClock();
    const pending = new PendingConditions(clock, 10_000);
    pending.wrote(node("u1", "5"), "7", CREATED);
    clock.advance(9_999);
    expect(pending.covers(node("u1", "5"), CREATED)).toBe(true);
    clock.advance(1);
    expect(pending.covers(node("u1", "5"), CREATED)).toBe(false);
    expect(pending.size).toBe(0);
  });

  test("a deleted Node is forgotten", () => {
    const pending = new PendingConditions(fakeClock(), 10_000);
    pending.wrote(node("u1", "5"), "7", CREATED);
    pending.forget(node("u1", "6"));
    expect(pending.size).toBe(0);
  });
});
