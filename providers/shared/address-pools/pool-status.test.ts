import { describe, expect, test } from "bun:test";
import { readPools, type AddressPoolObject } from "./cluster-pools.ts";
import { poolStatus, showsStatus } from "./pool-status.ts";
import { poolKey } from "./pools.ts";

const object = (name: string, created: string, spec: Record<string, unknown>): AddressPoolObject => ({
  metadata: { name, creationTimestamp: created, generation: 1 },
  spec,
});

/** The objects as they are once the leader wrote their statuses (as it read them together). */
const shownInForce = (objects: readonly AddressPoolObject[]): AddressPoolObject[] =>
  readPools(objects).map((r) => ({ ...r.object, status: { ...poolStatus(r, [], "2026-01-01T00:00:00Z") } }));

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
    const held = readPools([pools[1]!])[0]!.pool!;
    expect(valid(readPools(pools, new Map([["b-used", held]])))).toEqual(["b-used"]);
    const shown = { ...pools[1]!, status: { conditions: [{ type: "Valid", status: "True" }] } };
    expect(valid(readPools([pools[0]!, shown]))).toEqual(["b-used"]);
  });

  test("ranges of one pool that overlap make that pool invalid, naming pool and ranges", () => {
    const read = readPools([object("twice", "2026-01-01T00:00:00Z", { addresses: ["10.0.0.0/29", "10.0.0.4"] })]);
    expect(read[0]!.pool).toBeUndefined();
    expect(read[0]!.problems).toEqual(["spec.addresses: 10.0.0.0/29 overlaps 10.0.0.4, both in pool twice"]);
  });

  test("an edit of an older pool that overlaps a newer one in force is not applied; the older keeps its spec", () => {
    const [early, late] = shownInForce([
      object("early", "2026-01-01T00:00:00Z", { addresses: ["10.0.0.0/30"] }),
      object("late", "2026-01-02T00:00:00Z", { addresses: ["10.0.1.0/30"] }),
    ]);
    const inForce = new Map(readPools([early!, late!]).map((r) => [r.object.metadata.name, r.pool!]));
    const edited = { ...early!, metadata: { ...early!.metadata, generation: 2 }, spec: { addresses: ["10.0.0.0/23"] } };
    const read = readPools([edited, late!], inForce);
    const byName = Object.fromEntries(read.map((r) => [r.object.metadata.name, r]));
    expect(byName.late!).toMatchObject({ pool: inForce.get("late"), problems: [] });
    expect(byName.early!.pool).toEqual(inForce.get("early"));
    expect(byName.early!.problems).toEqual([
      "edit not applied: 10.0.0.0/23 (pool early) overlaps 10.0.1.0/30 (pool late), which is in force",
    ]);
  });

  test("a restart or failover (no memory) keeps the pools the running leader keeps: the status records the spec in force", () => {
    const [early, late] = shownInForce([
      object("early", "2026-01-01T00:00:00Z", { addresses: ["10.0.0.0/30"] }),
      object("late", "2026-01-02T00:00:00Z", { addresses: ["10.0.1.0/30"] }),
    ]);
    const running = readPools([early!, late!]);
    const inForce = new Map(running.map((r) => [r.object.metadata.name, r.pool!]));
    const edited = { ...early!, metadata: { ...early!.metadata, generation: 2 }, spec: { addresses: ["10.0.0.0/23"] } };
    const overlapping = object("newer", "2026-01-03T00:00:00Z", { addresses: ["10.0.0.0/31"] });
    const live = shownInForce(readPools([edited, late!, overlapping], inForce).map((r) => r.object));
    const restarted = readPools(live);
    const inForceNow = (read: ReturnType<typeof readPools>): [string, unknown][] =>
      read.map((r) => [r.object.metadata.name, r.pool && poolKey(r.pool)]);
    expect(inForceNow(restarted)).toEqual(inForceNow(readPools([edited, late!, overlapping], inForce)));
    expect(inForceNow(restarted).find(([name]) => name === "early")?.[1]).toBe(poolKey(inForce.get("early")!));
    expect(restarted.find((r) => r.object.metadata.name === "newer")?.pool).toBeUndefined();
  });

  test("after a restart, a pool whose status shows its current generation in force ranks before an edited one", () => {
    const valid = { conditions: [{ type: "Valid", status: "True", observedGeneration: 1 }] };
    const early = { ...object("early", "2026-01-01T00:00:00Z", { addresses: ["10.0.0.0/23"] }), status: valid };
    const late = { ...object("late", "2026-01-02T00:00:00Z", { addresses: ["10.0.1.0/30"] }), status: valid };
    early.metadata = { ...early.metadata, generation: 2 };
    const read = readPools([early, late]);
    expect(read.map((r) => [r.object.metadata.name, r.pool !== undefined])).toEqual([
      ["late", true],
      ["early", false],
    ]);
  });

  test("an edit with a bad address keeps the last valid spec in force and reports the edit", () => {
    const [good] = shownInForce([object("p", "2026-01-01T00:00:00Z", { addresses: ["10.0.0.0/30"] })]);
    const inForce = readPools([good!])[0]!.pool!;
    const [read] = readPools([{ ...good!, spec: { addresses: ["10.0.0.0/33"] } }]);
    expect(read!.pool).toEqual(inForce);
    expect(read!.problems.join()).toMatch(/^edit not applied: spec.addresses: "10.0.0.0\/33" is not a CIDR/);
    const status = poolStatus(read!, [], "2026-01-03T00:00:00Z");
    expect(status).toMatchObject({ free: "4", conditions: [{ status: "False", reason: "EditNotApplied" }] });
    expect(status.appliedSpec).toBe(good!.status?.appliedSpec as string);
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
