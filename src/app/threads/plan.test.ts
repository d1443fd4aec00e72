import { describe, expect, test } from "bun:test";
import { CONTROLLER_NAMES, type ControllerName } from "../../names/controllers.ts";
import { planThreads } from "./plan.ts";

const all: readonly ControllerName[] = CONTROLLER_NAMES;

describe("planThreads", () => {
  const cases: { threads: number; enabled?: ControllerName[]; want: string[][] }[] = [
    {
      threads: 1,
      want: [
        ["cloud-node-controller", "service-lb-controller", "cloud-node-lifecycle-controller", "node-route-controller"],
      ],
    },
    {
      threads: 2,
      want: [
        ["cloud-node-controller", "cloud-node-lifecycle-controller"],
        ["service-lb-controller", "node-route-controller"],
      ],
    },
    {
      threads: 4,
      want: [
        ["cloud-node-controller"],
        ["service-lb-controller"],
        ["cloud-node-lifecycle-controller"],
        ["node-route-controller"],
      ],
    },
    {
      threads: 8,
      want: [
        ["cloud-node-controller"],
        ["service-lb-controller"],
        ["cloud-node-lifecycle-controller"],
        ["node-route-controller"],
      ],
    },
    { threads: 2, enabled: ["service-lb-controller"], want: [["service-lb-controller"]] },
    { threads: 2, enabled: [], want: [] },
  ];
  for (const c of cases) {
    test(`${c.threads} thread(s) over ${c.enabled ? JSON.stringify(c.enabled) : "all"}`, () => {
      const got: string[][] = planThreads(c.enabled ?? all, c.threads).map((p) => [...p.controllers]);
      expect(got).toEqual(c.want);
    });
  }
});
