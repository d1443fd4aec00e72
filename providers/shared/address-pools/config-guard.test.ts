import { describe, expect, test } from "bun:test";
import { decideGuard, poolsHash, POOLS_HASH_ANNOTATION, type GuardDecision } from "./config-guard.ts";
import { parseLoadBalancers } from "./pools-config.ts";
import { Problems } from "../config-reader.ts";
import { serviceKeys } from "./annotations.ts";

function poolsOf(raw: unknown): Parameters<typeof poolsHash>[0] {
  const p = new Problems();
  const settings = parseLoadBalancers(p, raw, serviceKeys("example.com"));
  expect(p.list).toEqual([]);
  return settings!.pools;
}

describe("pools hash", () => {
  const a = { name: "a", addresses: ["192.0.2.0/30"] };
  const extra = { name: "extra", addresses: ["192.0.2.8-192.0.2.11"] };

  test("equal for the same pools in any order; different when a pool or a range differs", () => {
    const both = poolsHash(poolsOf({ pools: [a, extra] }));
    expect(poolsHash(poolsOf({ pools: [extra, a] }))).toBe(both);
    expect(poolsHash(poolsOf({ pools: [a] }))).not.toBe(both);
    expect(poolsHash(poolsOf({ pools: [a, { ...extra, addresses: ["192.0.2.8-192.0.2.12"] }] }))).not.toBe(both);
  });
});

describe("decideGuard", () => {
  const cases: { name: string; recorded?: string; mine: string; written?: string; kind: GuardDecision["kind"] }[] = [
    { name: "nothing recorded yet: record mine", mine: "h1", kind: "record" },
    { name: "the same pools as the previous leader", recorded: "h1", mine: "h1", kind: "agree" },
    {
      name: "my own live edit while in agreement: record it",
      recorded: "h1",
      mine: "h2",
      written: "h1",
      kind: "record",
    },
    { name: "another leader's pools differ from mine: refuse moves", recorded: "h1", mine: "h2", kind: "refuse" },
    {
      name: "another leader recorded h1 after my h0: refuse",
      recorded: "h1",
      mine: "h2",
      written: "h0",
      kind: "refuse",
    },
  ];
  for (const c of cases)
    test(c.name, () => {
      expect(decideGuard(c.recorded, c.mine, c.written).kind).toBe(c.kind);
    });

  test("the refusal names both hashes and how to resolve it", () => {
    const decision = decideGuard("aaa", "bbb", undefined);
    expect(decision.kind === "refuse" && decision.reason).toContain("hash bbb");
    expect(decision.kind === "refuse" && decision.reason).toContain("hash aaa");
    expect(decision.kind === "refuse" && decision.reason).toContain(POOLS_HASH_ANNOTATION);
  });
});
