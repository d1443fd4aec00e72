import { describe, expect, test } from "bun:test";
import { CONTROLLER_NAMES, type ControllerName } from "../../names/controllers.ts";
import { describePlan, planThreads, threadsBeyondCpus } from "./plan.ts";

const all: readonly ControllerName[] = CONTROLLER_NAMES;
const keyed: ControllerName[] = ["cloud-node-controller", "cloud-node-lifecycle-controller", "service-lb-controller"];

describe("planThreads", () => {
  const cases: { threads: number; enabled?: ControllerName[]; want: [number, number, string[]][] }[] = [
    { threads: 1, want: [[0, 1, [...all]]] },
    {
      threads: 2,
      want: [
        [0, 2, [...all]],
        [1, 2, keyed],
      ],
    },
    {
      threads: 4,
      want: [
        [0, 4, [...all]],
        [1, 4, keyed],
        [2, 4, keyed],
        [3, 4, keyed],
      ],
    },
    // More threads than controllers: the keys still spread over every thread.
    {
      threads: 8,
      want: Array.from({ length: 8 }, (_, i) => [i, 8, i === 0 ? [...all] : keyed] as [number, number, string[]]),
    },
    {
      threads: 2,
      enabled: ["service-lb-controller"],
      want: [
        [0, 2, ["service-lb-controller"]],
        [1, 2, ["service-lb-controller"]],
      ],
    },
    // Only whole-cluster work: one thread, nothing to split.
    { threads: 4, enabled: ["node-route-controller"], want: [[0, 1, ["node-route-controller"]]] },
    { threads: 2, enabled: [], want: [] },
  ];
  for (const c of cases) {
    test(`${c.threads} thread(s) over ${c.enabled ? JSON.stringify(c.enabled) : "all"}`, () => {
      const got: [number, number, string[]][] = planThreads(c.enabled ?? all, c.threads).map((p) => [
        p.shard.index,
        p.shard.count,
        [...p.controllers],
      ]);
      expect(got).toEqual(c.want);
      for (const p of planThreads(c.enabled ?? all, c.threads)) expect(p.shard.index).toBe(p.thread);
    });
  }

  test("a provider that allocates addresses itself: service-lb-controller on thread 0 alone, over every key", () => {
    const plans = planThreads(all, 3, ["service-lb-controller"]);
    expect(plans.map((p) => [p.thread, [...p.controllers], [...p.whole]])).toEqual([
      [0, [...all], ["node-route-controller", "service-lb-controller"]],
      [1, ["cloud-node-controller", "cloud-node-lifecycle-controller"], []],
      [2, ["cloud-node-controller", "cloud-node-lifecycle-controller"], []],
    ]);
    expect(describePlan(plans)).toBe(
      "running 3 controller thread(s); keys split by hash over every thread: cloud-node-controller, " +
        "cloud-node-lifecycle-controller; on thread 0 alone: node-route-controller, service-lb-controller",
    );
    // Only the load balancers enabled: nothing left to split, one thread.
    expect(planThreads(["service-lb-controller"], 4, ["service-lb-controller"])).toEqual([
      {
        thread: 0,
        controllers: ["service-lb-controller"],
        shard: { index: 0, count: 1 },
        whole: ["service-lb-controller"],
      },
    ]);
  });

  test("only thread 0 has whole-cluster controllers, and only those not split by key", () => {
    for (const p of planThreads(all, 4)) expect([...p.whole]).toEqual(p.thread === 0 ? ["node-route-controller"] : []);
  });

  test("every keyed controller on every thread, a whole-cluster one on exactly one", () => {
    const plans = planThreads(all, 3);
    for (const name of keyed) expect(plans.filter((p) => p.controllers.includes(name)).length).toBe(3);
    expect(plans.filter((p) => p.controllers.includes("node-route-controller")).map((p) => p.thread)).toEqual([0]);
  });
});

describe("describePlan", () => {
  test("names the split and the thread-0 controllers", () => {
    expect(describePlan(planThreads(all, 2))).toBe(
      "running 2 controller thread(s); keys split by hash over every thread: cloud-node-controller, " +
        "cloud-node-lifecycle-controller, service-lb-controller; on thread 0 alone: node-route-controller",
    );
    expect(describePlan(planThreads(["node-route-controller"], 2))).toBe(
      "running 1 controller thread(s); on thread 0 alone: node-route-controller",
    );
  });
});

describe("threadsBeyondCpus", () => {
  test.each([
    [1, 2, undefined],
    [2, 2, undefined],
    [8, 16, undefined],
    [3, 2, "3 controller threads on 2 CPU(s): threads beyond the CPUs add memory and CPU, not speed"],
    [8, 1, "8 controller threads on 1 CPU(s): threads beyond the CPUs add memory and CPU, not speed"],
  ])("%d threads on %d CPUs", (threads, cpus, want) => {
    expect(threadsBeyondCpus(threads, cpus)).toBe(want);
  });
});
