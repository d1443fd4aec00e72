import { afterAll, describe, expect, test } from "bun:test";
import type { BmcSettings } from "./bmc-config.ts";
import { judgePower } from "./power-state.ts";
import { createRedfishApi } from "./redfish-api.ts";

/** A BMC whose system 1 redirects to a system it has not (404) and whose collection lists system 2. */
const server = Bun.serve({
  port: 0,
  fetch(request) {
    const path = new URL(request.url).pathname;
    if (path === "/redfish/v1/Systems/1") return Response.redirect("/redfish/v1/Systems/elsewhere", 302);
    if (path === "/redfish/v1/Systems/2") return Response.json({ PowerState: "On" });
    if (path === "/redfish/v1/Systems") return Response.json({ Members: [{ "@odata.id": "/redfish/v1/Systems/2" }] });
    return new Response("", { status: 404 });
  },
});
afterAll(() => void server.stop(true));

const bmc = (id: string): BmcSettings => ({
  url: `http://127.0.0.1:${server.port}/redfish/v1/Systems/${id}`,
  address: `redfish+http://127.0.0.1:${server.port}/redfish/v1/Systems/${id}`,
  credentials: { kind: "none" },
  disableCertificateVerification: false,
});

describe("Redfish API", () => {
  const calls: string[] = [];
  const api = createRedfishApi({ observeCall: (operation, _s, outcome) => calls.push(`${operation} ${outcome}`) });

  test("a redirect is not followed: it is its own answer, so one ending in 404 never reads as gone", async () => {
    const reply = await api.getSystem(bmc("1"), undefined);
    expect(reply).toEqual({ status: 302 });
    expect(judgePower(reply).kind).toBe("unknown");
  });

  test("the Systems collection says whether it lists the system", async () => {
    expect(await api.getSystem(bmc("2"), undefined)).toEqual({ status: 200, powerState: "On" });
    expect(await api.getSystems(bmc("2"), undefined)).toEqual({ status: 200, listed: true });
    expect(await api.getSystems(bmc("3"), undefined)).toEqual({ status: 200, listed: false });
    expect(calls).toContain("redfish:GetSystems success");
  });
});
