import { describe, expect, test } from "bun:test";
import { judgePower, stateFromPower, type RedfishReply } from "./power-state.ts";

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
    ["404: the system does not exist", { status: 404 }, "gone"],
    ["404 even with a PowerState", { status: 404, powerState: "On" }, "gone"],
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

  test("the reason says what went wrong", () => {
    expect(judgePower({ status: 401 })).toEqual({
      kind: "unknown",
      reason: "HTTP 401: the BMC refused the credentials",
    });
    expect(judgePower({ failure: "ECONNREFUSED" })).toEqual({ kind: "unknown", reason: "no answer: ECONNREFUSED" });
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
