import { describe, expect, test } from "bun:test";
import { kubeletNode } from "../../../test/harness/fixtures.ts";
import type { Answer, InstanceState } from "../../cloud/provider.ts";
import type { Node, Taint } from "../../kube/objects.ts";
import { TAINT_SHUTDOWN } from "../../kube/well-known.ts";
import {
  addShutdownTaintPatch,
  decideNotReady,
  mayNeedAction,
  readyStatus,
  removeShutdownTaintPatch,
  type NotReadyDecision,
} from "./plan.ts";

const SHUTDOWN: Taint = { key: TAINT_SHUTDOWN, effect: "NoSchedule" };
const OTHER: Taint = { key: "example.com/dedicated", value: "db", effect: "NoSchedule" };

/** `ready` undefined: a Node without a Ready condition. */
const node = (ready: boolean | undefined, taints: Taint[] = []): Node => {
  const n = kubeletNode("node-a", { ready: ready ?? false, uninitialized: false });
  n.spec = { ...n.spec, taints };
  if (ready === undefined) n.status = { ...n.status, conditions: [] };
  return n;
};

describe("mayNeedAction: the Nodes a monitor pass looks at", () => {
  test.each([
    { name: "Ready, untainted: nothing to do", n: node(true, [OTHER]), want: false },
    { name: "NotReady: ask the cloud", n: node(false), want: true },
    { name: "no Ready condition (Unknown): ask the cloud", n: node(undefined), want: true },
    { name: "Ready with the shutdown taint: remove it", n: node(true, [SHUTDOWN]), want: true },
  ])("$name", ({ n, want }) => {
    expect(mayNeedAction(n)).toBe(want);
  });
});

describe("readyStatus", () => {
  test("the Ready condition's status; none counts as Unknown", () => {
    expect(readyStatus(node(true))).toBe("True");
    expect(readyStatus(node(false))).toBe("False");
    expect(readyStatus(node(undefined))).toBe("Unknown");
  });
});

describe("decideNotReady", () => {
  const PERIOD = 5000;
  const NOW = 1_000_000;
  const gone: Answer<InstanceState> = { value: { exists: false } };
  const running: Answer<InstanceState> = { value: { exists: true, shutdown: false } };
  const stopped: Answer<InstanceState> = { value: { exists: true, shutdown: true } };
  const failed: Answer<InstanceState> = { error: new Error("RequestLimitExceeded") };

  const table: {
    name: string;
    answer: Answer<InstanceState>;
    missingSince?: number;
    confirm?: boolean;
    taints?: Taint[];
    want: NotReadyDecision;
  }[] = [
    {
      name: "first 'does not exist' is only remembered",
      answer: gone,
      want: { action: "awaitConfirmation", missingSince: NOW },
    },
    {
      name: "a second one less than a period later still waits",
      answer: gone,
      missingSince: NOW - PERIOD + 1,
      want: { action: "awaitConfirmation", missingSince: NOW - PERIOD + 1 },
    },
    {
      name: "a second one a period later deletes",
      answer: gone,
      missingSince: NOW - PERIOD,
      want: { action: "delete", missingSince: undefined },
    },
    {
      name: "without confirmation the first one deletes (upstream)",
      answer: gone,
      confirm: false,
      want: { action: "delete", missingSince: undefined },
    },
    {
      name: "an error never deletes and forgets the first answer",
      answer: failed,
      missingSince: NOW - 10 * PERIOD,
      want: { action: "none", missingSince: undefined },
    },
    {
      name: "an error never deletes, even without confirmation",
      answer: failed,
      confirm: false,
      want: { action: "none", missingSince: undefined },
    },
    {
      name: "exists forgets the first answer",
      answer: running,
      missingSince: NOW - 10 * PERIOD,
      want: { action: "none", missingSince: undefined },
    },
    {
      name: "shut down: add the shutdown taint",
      answer: stopped,
      taints: [OTHER],
      want: { action: "addShutdownTaint", missingSince: undefined },
    },
    {
      name: "shut down and already tainted: nothing",
      answer: stopped,
      taints: [OTHER, SHUTDOWN],
      want: { action: "none", missingSince: undefined },
    },
  ];
  for (const row of table) {
    test(row.name, () => {
      const observation = {
        node: node(false, row.taints),
        answer: row.answer,
        missingSince: row.missingSince,
        now: NOW,
      };
      expect(decideNotReady(observation, { confirm: row.confirm ?? true, periodMs: PERIOD })).toEqual(row.want);
    });
  }
});

describe("shutdown taint patches", () => {
  const table: { name: string; node: Node; add: object | undefined; remove: object | undefined }[] = [
    {
      name: "NotReady, untainted",
      node: node(false, [OTHER]),
      add: { spec: { taints: [OTHER, SHUTDOWN] } },
      remove: undefined,
    },
    { name: "NotReady, tainted", node: node(false, [SHUTDOWN, OTHER]), add: undefined, remove: undefined },
    {
      name: "Ready, tainted: removed, other taints kept",
      node: node(true, [SHUTDOWN, OTHER]),
      add: undefined,
      remove: { spec: { taints: [OTHER] } },
    },
    { name: "Ready, untainted", node: node(true, [OTHER]), add: undefined, remove: undefined },
    {
      name: "Unknown, tainted: stays until Ready",
      node: node(undefined, [SHUTDOWN]),
      add: undefined,
      remove: undefined,
    },
    {
      name: "a shutdown taint with another effect is not ours",
      node: node(true, [{ key: TAINT_SHUTDOWN, effect: "NoExecute" }]),
      add: undefined,
      remove: undefined,
    },
  ];
  for (const row of table) {
    test(row.name, () => {
      expect(addShutdownTaintPatch(row.node)).toEqual(row.add);
      expect(removeShutdownTaintPatch(row.node)).toEqual(row.remove);
    });
  }
});
