import { describe, expect, test } from "bun:test";
import {
  judgePower,
  listsSystem,
  stateFromPower,
  systemsUrlOf,
  type RedfishReply,
  type SystemsReply,
} from "./power-state.ts";

describe("judgePower: HTTP status × PowerState → verdict", () => {
  const cases: [string, RedfishReply, string][] = [
    ["200 Off", { status: 200, powerState: "Off" }, "shutdown"],
    ["200 On", { status: 200, powerState: "On" }, "running"],
    ["200 PoweringOn", { status: 200, powerState: "PoweringOn" }, "running"],
    ["200 PoweringOff (not off yet)", { status: 200, powerState: "PoweringOff" }, "running"],
    ["200 Paused", { status: 200, powerState: "Paused" }, "running"],
    ["200 without PowerState", { status: 200 }, "unknown"],
    ["200 with a null PowerState", { status: 200, powerState: null }, "unknown"],
    ["200 with an unknown PowerState", { status: 200, powerState: "Sleeping" }, "unknown"],
    ["200 with PowerState of the wrong case", { status: 200, powerState: "off" }, "unknown"],
    ["404 alone: not confirmed", { status: 404 }, "unknown"],
    ["410 is not the 404 the rule names", { status: 410 }, "unknown"],
    ["401: bad credentials", { status: 401 }, "unknown"],
    ["403: forbidden", { status: 403 }, "unknown"],
    ["500", { status: 500, powerState: "Off" }, "unknown"],
    ["503 (BMC busy)", { status: 503 }, "unknown"],
    ["a redirect that was not followed", { status: 307 }, "unknown"],
    ["connection refused", { failure: "connection refused" }, "unknown"],
    ["timeout", { failure: "timed out after 10000 ms" }, "unknown"],
  ];
  test.each(cases)("%s", (_, reply, kind) => {
    expect(judgePower(reply).kind).toBe(kind as never);
  });

  const gone: [string, SystemsReply, string][] = [
    ["the collection answers without the system", { status: 200, listed: false }, "gone"],
    ["the collection still lists it", { status: 200, listed: true }, "unknown"],
    ["the collection has no readable Members", { status: 200 }, "unknown"],
    ["the collection answers 404 too (BMC restarting)", { status: 404 }, "unknown"],
    ["the collection answers 503", { status: 503 }, "unknown"],
    ["the collection does not answer", { failure: "timeout" }, "unknown"],
  ];
  test.each(gone)("404, then %s", (_, systems, kind) => {
    expect(judgePower({ status: 404 }, systems).kind).toBe(kind as never);
    expect(judgePower({ status: 404, powerState: "On" }, systems).kind).toBe(kind as never);
  });

  test("the reason says what went wrong", () => {
    expect(judgePower({ status: 401 })).toEqual({
      kind: "unknown",
      reason: "HTTP 401: the BMC refused the credentials",
    });
    expect(judgePower({ failure: "ECONNREFUSED" })).toEqual({ kind: "unknown", reason: "no answer: ECONNREFUSED" });
    expect(judgePower({ status: 302 })).toEqual({
      kind: "unknown",
      reason: "HTTP 302: the BMC redirects; give the system's own address",
    });
  });
});

describe("the Systems collection", () => {
  test("its URL is the system's without the last segment", () => {
    expect(systemsUrlOf("https://b/redfish/v1/Systems/1")).toBe("https://b/redfish/v1/Systems");
    expect(systemsUrlOf("http://b:8000/redfish/v1/Systems/node-1/?x=1")).toBe("http://b:8000/redfish/v1/Systems");
  });
  test("lists a system by path, absolute or relative, with or without a trailing slash", () => {
    const url = "https://b/redfish/v1/Systems/1";
    const of = (...ids: unknown[]): unknown => ({ Members: ids.map((id) => ({ "@odata.id": id })) });
    expect(listsSystem(of("/redfish/v1/Systems/1"), url)).toBe(true);
    expect(listsSystem(of("/redfish/v1/Systems/1/"), url)).toBe(true);
    expect(listsSystem(of("https://b/redfish/v1/Systems/1"), url)).toBe(true);
    expect(listsSystem(of("/redfish/v1/Systems/10", 7), url)).toBe(false);
    expect(listsSystem(of(), url)).toBe(false);
    expect(listsSystem({}, url)).toBeUndefined();
    expect(listsSystem(undefined, url)).toBeUndefined();
  });
  test("a page of the collection (a next link, or a count above its members) never says a system is not listed", () => {
    const url = "https://b/redfish/v1/Systems/1";
    const page = (extra: Record<string, unknown>, id: string): unknown => ({
      Members: [{ "@odata.id": id }],
      ...extra,
    });
    const next = { "Members@odata.nextLink": "/redfish/v1/Systems?$skip=1" };
    expect(listsSystem(page(next, "/redfish/v1/Systems/2"), url)).toBeUndefined();
    expect(listsSystem(page(next, "/redfish/v1/Systems/1"), url)).toBe(true);
    expect(listsSystem(page({ "Members@odata.count": 2 }, "/redfish/v1/Systems/2"), url)).toBeUndefined();
    expect(listsSystem(page({ "Members@odata.count": 1 }, "/redfish/v1/Systems/2"), url)).toBe(false);
  });
});

describe("stateFromPower: the instance state the lifecycle controller acts on", () => {
  test("running, shut down and gone are answers", () => {
    expect(stateFromPower({ kind: "running", powerState: "On" }, "m")).toEqual({ exists: true, shutdown: false });
    expect(stateFromPower({ kind: "shutdown" }, "m")).toEqual({ exists: true, shutdown: true });
    expect(stateFromPower({ kind: "gone" }, "m")).toEqual({ exists: false });
  });
  test("unknown is an error, never an answer", () => {
    expect(() => stateFromPower({ kind: "unknown", reason: "HTTP 503" }, "machine w1")).toThrow(
      "cannot tell the power state of machine w1: HTTP 503",
    );
  });
});
