import { describe, expect, test } from "bun:test";
import type { BmcCredentials, BmcSettings } from "./bmc-config.ts";
import { createPowerLookup, expiringMemo } from "./power-lookup.ts";
import type { RedfishReply, SystemsReply } from "./power-state.ts";
import type { Login, RedfishApi } from "./redfish-api.ts";

const bmc = (host: string, id = "1", credentials: BmcCredentials = { kind: "none" }): BmcSettings => ({
  url: `https://${host}/redfish/v1/Systems/${id}`,
  address: `redfish://${host}/redfish/v1/Systems/${id}`,
  credentials,
  disableCertificateVerification: false,
});

/**
 * A BMC double: answers from `replies` (by URL; the Systems collection from `systems`, by system URL),
 * counts requests and the most in flight per host.
 */
function fakeApi(replies: Map<string, RedfishReply>, delayMs = 5, systems = new Map<string, SystemsReply>()) {
  const stats = { requests: 0, inFlight: 0, maxInFlight: 0, logins: [] as (Login | undefined)[] };
  const answer = async <T>(login: Login | undefined, reply: T): Promise<T> => {
    stats.requests++;
    stats.logins.push(login);
    stats.maxInFlight = Math.max(stats.maxInFlight, ++stats.inFlight);
    await Bun.sleep(delayMs);
    stats.inFlight--;
    return reply;
  };
  const api: RedfishApi = {
    getSystem: (target, login) => answer(login, replies.get(target.url) ?? { failure: "connection refused" }),
    getSystems: (target, login) => answer(login, systems.get(target.url) ?? { failure: "connection refused" }),
  };
  return { api, stats };
}

function lookup(api: RedfishApi, clock: { now: number }, read = async (): Promise<Login | undefined> => undefined) {
  return createPowerLookup({
    api,
    readCredentials: read,
    credentialKey: (c) => JSON.stringify(c),
    ttlMs: 1000,
    perBmc: 2,
    now: () => clock.now,
  });
}

describe("power lookup", () => {
  test("one answer per system within the TTL; concurrent questions share one request", async () => {
    const target = bmc("b1");
    const { api, stats } = fakeApi(new Map([[target.url, { status: 200, powerState: "Off" }]]));
    const clock = { now: 0 };
    const power = lookup(api, clock);
    const verdicts = await Promise.all([power(target), power(target), power(target)]);
    expect(verdicts.map((v) => v.kind)).toEqual(["shutdown", "shutdown", "shutdown"]);
    expect(stats.requests).toBe(1);
    clock.now = 999;
    await power(target);
    expect(stats.requests).toBe(1);
    clock.now = 1001;
    await power(target);
    expect(stats.requests).toBe(2);
  });

  test("unknown is never kept: the next question asks again", async () => {
    const target = bmc("b1");
    const replies = new Map<string, RedfishReply>([[target.url, { status: 503 }]]);
    const { api, stats } = fakeApi(replies);
    const power = lookup(api, { now: 0 });
    expect((await power(target)).kind).toBe("unknown");
    replies.set(target.url, { status: 200, powerState: "On" });
    expect((await power(target)).kind).toBe("running");
    expect(stats.requests).toBe(2);
  });

  test("a 404 is gone only when the Systems collection answers without the system; gone is never kept", async () => {
    const target = bmc("b1");
    const systems = new Map<string, SystemsReply>([[target.url, { status: 503 }]]);
    const { api, stats } = fakeApi(new Map([[target.url, { status: 404 }]]), 1, systems);
    const power = lookup(api, { now: 0 });
    expect(await power(target)).toEqual({
      kind: "unknown",
      reason: "HTTP 404 for the system, but the Systems collection answered HTTP 503",
    });
    systems.set(target.url, { status: 200, listed: true });
    expect((await power(target)).kind).toBe("unknown");
    systems.set(target.url, { status: 200, listed: false });
    expect((await power(target)).kind).toBe("gone");
    expect((await power(target)).kind).toBe("gone");
    expect(stats.requests).toBe(8);
  });

  test("at most perBmc requests per BMC endpoint at a time; other BMCs are not held up", async () => {
    const systems = Array.from({ length: 8 }, (_, i) => bmc("shared", String(i)));
    const other = bmc("other");
    const replies = new Map<string, RedfishReply>(
      [...systems, other].map((s) => [s.url, { status: 200, powerState: "On" }]),
    );
    const { api, stats } = fakeApi(replies, 20);
    const power = lookup(api, { now: 0 });
    await Promise.all(systems.map((s) => power(s)));
    expect(stats.maxInFlight).toBe(2);
    expect(stats.requests).toBe(8);
  });

  test("credentials are read once, and again after the BMC refuses them", async () => {
    const target = bmc("b1", "1", { kind: "secret", namespace: "ns", name: "s" });
    const replies = new Map<string, RedfishReply>([[target.url, { status: 401 }]]);
    const { api, stats } = fakeApi(replies);
    let reads = 0;
    const power = lookup(api, { now: 0 }, async () => ({ username: "u", password: `p${++reads}` }));
    expect((await power(target)).kind).toBe("unknown");
    replies.set(target.url, { status: 200, powerState: "On" });
    expect((await power(target)).kind).toBe("running");
    expect((await power(bmc("b1", "2", target.credentials))).kind).toBe("unknown");
    expect(stats.logins.map((l) => l?.password)).toEqual(["p1", "p2", "p2"]);
  });

  test("credentials that cannot be read are unknown, without asking the BMC", async () => {
    const { api, stats } = fakeApi(new Map());
    const power = lookup(api, { now: 0 }, () => Promise.reject(new Error("Secret ns/s has no password")));
    expect(await power(bmc("b1"))).toEqual({
      kind: "unknown",
      reason: "cannot read the BMC credentials: Secret ns/s has no password",
    });
    expect(stats.requests).toBe(0);
  });
});

describe("expiringMemo", () => {
  test("a rejection is forgotten at once", async () => {
    const memo = expiringMemo<number>(
      1000,
      () => 0,
      () => true,
    );
    let calls = 0;
    await memo.get("k", () => Promise.reject(new Error(`fail ${++calls}`))).catch(() => undefined);
    expect(await memo.get("k", () => Promise.resolve(++calls))).toBe(2);
    expect(await memo.get("k", () => Promise.resolve(++calls))).toBe(2);
  });
});
