import { describe, expect, test } from "bun:test";
import { readPools, type AddressPoolObject } from "./cluster-pools.ts";
import { poolStatus, showsStatus } from "./pool-status.ts";

const object = (name: string, created: string, spec: Record<string, unknown>): AddressPoolObject => ({
  metadata: { name, creationTimestamp: created, generation: 1 },
  spec,
});

describe("reading AddressPool objects", () => {
  test("a pool overlapping an older one offers nothing and says why; the older keeps its addresses", () => {
    const read = readPools([
      object("late", "2026-01-02T00:00:00Z", { addresses: ["10.0.0.8/29"] }),
      object("early", "2026-01-01T00:00:00Z", { addresses: ["10.0.0.0/28"] }),
    ]);
    expect(read.map((r) => [r.object.metadata.name, r.pool !== undefined])).toEqual([
      ["early", true],
      ["late", false],
    ]);
    expect(read[1]!.problems.join()).toContain("overlaps");
  });

  test("pools of the same second: the one in force (here, or as its status shows) keeps its addresses", () => {
    const second = "2026-01-01T00:00:00Z";
    const pools = [
      object("a-new", second, { addresses: ["10.0.0.9"] }),
      object("b-used", second, { addresses: ["10.0.0.8/30"] }),
    ];
    const valid = (read: ReturnType<typeof readPools>): string[] =>
      read.filter((r) => r.pool).map((r) => r.object.metadata.name);
    expect(valid(readPools(pools))).toEqual(["a-new"]);
    expect(valid(readPools(pools, new Set(["b-used"])))).toEqual(["b-used"]);
    const shown = { ...pools[1]!, status: { conditions: [{ type: "Valid", status: "True" }] } };
    expect(valid(readPools([pools[0]!, shown]))).toEqual(["b-used"]);
  });

  test("ranges of one pool that overlap make that pool invalid, naming pool and ranges", () => {
    const read = readPools([object("twice", "2026-01-01T00:00:00Z", { addresses: ["10.0.0.0/29", "10.0.0.4"] })]);
    expect(read[0]!.pool).toBeUndefined();
    expect(read[0]!.problems).toEqual(["spec.addresses: 10.0.0.0/29 overlaps 10.0.0.4, both in pool twice"]);
  });

  test("an unreadable address makes only its own pool invalid", () => {
    const read = readPools([
      object("bad", "2026-01-01T00:00:00Z", { addresses: ["10.0.0.300"] }),
      object("good", "2026-01-02T00:00:00Z", { addresses: ["10.0.1.0/30"] }),
    ]);
    expect(read.map((r) => r.problems.length > 0)).toEqual([true, false]);
  });
});

describe("pool status", () => {
  const now = "2026-01-03T00:00:00Z";
  test("used and free per family; avoided .0/.255 addresses count as neither", () => {
    const [read] = readPools([
      object("p", "2026-01-01T00:00:00Z", { addresses: ["10.0.0.0/24", "fd00::/126"], avoidBuggyIPs: true }),
    ]);
    const status = poolStatus(read!, ["10.0.0.1", "10.0.0.2", "fd00::1", "192.0.2.1"], now);
    expect(status).toMatchObject({ used: 3, usedIPv4: 2, freeIPv4: 252, usedIPv6: 1, freeIPv6: "3", free: "255" });
    expect(status.conditions[0]).toMatchObject({ type: "Valid", status: "True", observedGeneration: 1 });
  });

  test("an invalid pool shows Valid=False with its problems and no free addresses", () => {
    const [read] = readPools([object("bad", "2026-01-01T00:00:00Z", { addresses: ["not-an-address"] })]);
    const status = poolStatus(read!, [], now);
    expect(status).toMatchObject({
      used: 0,
      free: "0",
      conditions: [{ type: "Valid", status: "False", reason: "Invalid" }],
    });
  });

  test("a status already shown is not written again; a changed count is", () => {
    const [read] = readPools([object("p", "2026-01-01T00:00:00Z", { addresses: ["10.0.0.0/30"] })]);
    const status = poolStatus(read!, ["10.0.0.1"], now);
    const shown = { ...read!, object: { ...read!.object, status: { ...status } } };
    expect(showsStatus(shown, poolStatus(shown, ["10.0.0.1"], "2026-01-04T00:00:00Z"))).toBe(true);
    expect(showsStatus(shown, poolStatus(shown, ["10.0.0.1", "10.0.0.2"], now))).toBe(false);
  });
});
