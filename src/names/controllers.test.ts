import { describe, expect, test } from "bun:test";
import { selectControllers } from "./controllers.ts";

describe("--controllers selection (upstream IsControllerEnabled)", () => {
  const all = [
    "cloud-node-controller",
    "cloud-node-lifecycle-controller",
    "node-route-controller",
    "service-lb-controller",
  ];
  const cases: { entries: string[]; want: string[]; unknown?: string[]; elsewhere?: string[] }[] = [
    { entries: ["*"], want: all },
    { entries: ["*", "-route"], want: all.filter((n) => n !== "node-route-controller") },
    { entries: ["-node-route-controller", "*"], want: all.filter((n) => n !== "node-route-controller") },
    { entries: ["cloud-node"], want: ["cloud-node-controller"] },
    {
      entries: ["service", "cloud-node-lifecycle"],
      want: ["cloud-node-lifecycle-controller", "service-lb-controller"],
    },
    { entries: ["service", "-service", "*"], want: all },
    { entries: [], want: [] },
    { entries: ["*", "nodes"], want: all, unknown: ["nodes"] },
    // Other managers' controllers: off is accepted, on is refused with the reason.
    { entries: ["*", "-tagging", "-nodeipam"], want: all },
    { entries: ["*", "tagging"], want: all, elsewhere: ['"tagging" is cloud-provider-aws'] },
    { entries: ["*", "-constructor", "toString"], want: all, unknown: ["-constructor", "toString"] },
  ];
  for (const c of cases) {
    test(JSON.stringify(c.entries), () => {
      const got = selectControllers(c.entries);
      expect([...got.enabled].sort() as string[]).toEqual(c.want);
      expect(got.unknown).toEqual(c.unknown ?? []);
      const starts = c.elsewhere ?? [];
      expect(got.elsewhere.map((why, i) => why.slice(0, starts[i]?.length))).toEqual(starts);
    });
  }
});
