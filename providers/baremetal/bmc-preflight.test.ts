import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { testProviderContext } from "../../test/harness/provider-context.ts";
import type { BmcSettings } from "./bmc-config.ts";
import { bmcProblem, bmcTargets, preflightBmcs, type BmcTarget } from "./bmc-preflight.ts";
import { readCredentials } from "./bmc-credentials.ts";
import { parseBaremetalConfig } from "./config.ts";
import type { Inventory } from "./inventory.ts";
import type { RedfishReply } from "./power-state.ts";
import { createRedfishApi } from "./redfish-api.ts";

function inventoryOf(yaml: string): Inventory {
  const parsed = parseBaremetalConfig(yaml);
  if (!parsed.ok) throw new Error(parsed.errors.join("; "));
  return parsed.config.inventory;
}

const bmc = (url: string, credentials: BmcSettings["credentials"] = { kind: "none" }): BmcSettings => ({
  url,
  address: url.replace(/^https:/, "redfish:"),
  credentials,
  disableCertificateVerification: false,
});
const target = (b: BmcSettings = bmc("https://10.0.9.11/redfish/v1/Systems/1")): BmcTarget => ({
  machines: ["worker-1"],
  bmc: b,
});
const WHO = "machine worker-1: BMC redfish://10.0.9.11/redfish/v1/Systems/1";

describe("bmcProblem: reply → the sentence check prints", () => {
  const dir = bmc("https://10.0.9.11/redfish/v1/Systems/1", { kind: "directory", path: "/etc/bmc/w1" });
  const plain = bmc("http://10.0.9.11/redfish/v1/Systems/1");
  const cases: [string, BmcTarget, RedfishReply, string | undefined][] = [
    ["On: fine", target(), { status: 200, powerState: "On" }, undefined],
    ["Off: fine", target(), { status: 200, powerState: "Off" }, undefined],
    [
      "401 with a credentials directory",
      target(dir),
      { status: 401 },
      `${WHO} refused the credentials (HTTP 401); fix the files username and password in /etc/bmc/w1`,
    ],
    [
      "403 without credentials",
      target(),
      { status: 403 },
      `${WHO} refused the credentials (HTTP 403); give credentialsDirectory or credentialsName (none is sent now)`,
    ],
    [
      "404",
      target(),
      { status: 404 },
      `${WHO} has no such system (HTTP 404): the address's /Systems/<id> is wrong; see the BMC's /redfish/v1/Systems for the id`,
    ],
    [
      "503",
      target(),
      { status: 503 },
      `${WHO} answered HTTP 503 to a GET of the system; check the BMC (busy, or the address is not its Redfish system)`,
    ],
    [
      "connection refused",
      target(),
      { failure: "ECONNREFUSED" },
      `${WHO}: no answer (ECONNREFUSED); check the address and that the manager can reach the BMC`,
    ],
    [
      "self-signed certificate over HTTPS",
      target(),
      { failure: "Self signed certificate" },
      `${WHO}: no answer (Self signed certificate); give caFile (the CA that signed the BMC's certificate) or disableCertificateVerification: true`,
    ],
    [
      "unverifiable chain over HTTPS",
      target(),
      { failure: "unable to verify the first certificate" },
      `${WHO}: no answer (unable to verify the first certificate); give caFile (the CA that signed the BMC's certificate) or disableCertificateVerification: true`,
    ],
    [
      "plain HTTP has no certificate to blame",
      target(plain),
      { failure: "no answer within 10000 ms" },
      "machine worker-1: BMC http://10.0.9.11/redfish/v1/Systems/1: no answer (no answer within 10000 ms); check the address and that the manager can reach the BMC",
    ],
    [
      "no PowerState",
      target(),
      { status: 200 },
      `${WHO} answered without a PowerState the provider reads (null); the address must name a Redfish ComputerSystem`,
    ],
    [
      "an unknown PowerState",
      target(),
      { status: 200, powerState: "Sleeping" },
      `${WHO} answered without a PowerState the provider reads ("Sleeping"); the address must name a Redfish ComputerSystem`,
    ],
  ];
  test.each(cases)("%s", (_, t, reply, sentence) => {
    expect(bmcProblem(t, reply)).toBe(sentence as never);
  });
});

describe("bmcTargets", () => {
  test("one per distinct system, naming every machine on it; machines without bmc are not asked", () => {
    const inventory = inventoryOf(`
inventory:
  machines:
    - { name: a, bmc: { address: "redfish://10.0.9.1/redfish/v1/Systems/1" } }
    - { name: b, bmc: { address: "redfish+https://10.0.9.1/redfish/v1/Systems/1/" } }
    - { name: c, bmc: { address: "redfish://10.0.9.1/redfish/v1/Systems/2" } }
    - { name: d }
`);
    expect(bmcTargets(inventory).map((t) => [t.machines, t.bmc.url])).toEqual([
      [["a", "b"], "https://10.0.9.1/redfish/v1/Systems/1"],
      [["c"], "https://10.0.9.1/redfish/v1/Systems/2"],
    ]);
  });

  test("source: cluster has no file machines to ask", () => {
    expect(bmcTargets(inventoryOf("inventory: { source: cluster }"))).toEqual([]);
  });
});

describe("preflightBmcs against a local Redfish endpoint", () => {
  let stop = (): void => undefined;
  afterEach(() => stop());

  function fakeBmc(): { base: string; seen: string[]; peak: () => number } {
    const seen: string[] = [];
    let inFlight = 0;
    let peak = 0;
    const server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      async fetch(request) {
        inFlight += 1;
        peak = Math.max(peak, inFlight);
        seen.push(`${new URL(request.url).pathname} ${request.headers.get("authorization") ?? "-"}`);
        await Bun.sleep(20);
        inFlight -= 1;
        const id = new URL(request.url).pathname.split("/").pop() ?? "";
        if (id.startsWith("gone")) return new Response("", { status: 404 });
        if (request.headers.get("authorization") !== `Basic ${btoa("admin:s3cret")}`)
          return new Response("", { status: 401 });
        return Response.json({ PowerState: "On" });
      },
    });
    stop = () => void server.stop(true);
    return { base: `redfish+http://127.0.0.1:${server.port}/redfish/v1/Systems`, seen, peak: () => peak };
  }

  async function preflight(yaml: string, lines: string[] = [], totalMs?: number): Promise<string[]> {
    const context = testProviderContext([], lines);
    return preflightBmcs(
      {
        inventory: inventoryOf(yaml),
        api: createRedfishApi({ observeCall: context.observeCall, timeoutMs: 2000 }),
        readCredentials: (c) => readCredentials(c, { kube: () => undefined, namespace: "" }),
        logger: context.logger,
        totalMs,
      },
      new AbortController().signal,
    );
  }

  test("each system once, at most 4 at a time; a Secret's BMC is not asked; only problems are reported", async () => {
    const { base, seen, peak } = fakeBmc();
    const creds = mkdtempSync(join(tmpdir(), "bmc-creds-"));
    writeFileSync(join(creds, "username"), "admin\n");
    writeFileSync(join(creds, "password"), "s3cret\n");
    const good = Array.from(
      { length: 6 },
      (_, i) => `    - { name: ok-${i}, bmc: { address: "${base}/ok-${i}", credentialsDirectory: ${creds} } }`,
    );
    const lines: string[] = [];
    const problems = await preflight(
      `
inventory:
  machines:
${good.join("\n")}
    - { name: twin, bmc: { address: "${base}/ok-0", credentialsDirectory: ${creds} } }
    - { name: gone, bmc: { address: "${base}/gone-1", credentialsDirectory: ${creds} } }
    - { name: anon, bmc: { address: "${base}/ok-9" } }
    - { name: secret, bmc: { address: "${base}/ok-8", credentialsName: s } }
`,
      lines,
    );
    expect(problems).toEqual([
      `machine gone: BMC ${base}/gone-1 has no such system (HTTP 404): the address's /Systems/<id> is wrong; see the BMC's /redfish/v1/Systems for the id`,
      `machine anon: BMC ${base}/ok-9 refused the credentials (HTTP 401); give credentialsDirectory or credentialsName (none is sent now)`,
    ]);
    expect(seen).toHaveLength(8);
    expect(seen.filter((s) => s.endsWith("/ok-0 Basic YWRtaW46czNjcmV0"))).toHaveLength(1);
    expect(seen.some((s) => s.includes("ok-8"))).toBe(false);
    expect(peak()).toBeLessThanOrEqual(4);
    expect(lines.join("\n")).toContain(`BMC ${base}/ok-8 not asked`);
  });

  test("an unreadable credentials directory and a refused connection are problems", async () => {
    const problems = await preflight(`
inventory:
  machines:
    - { name: a, bmc: { address: "redfish+http://127.0.0.1:1/redfish/v1/Systems/1", credentialsDirectory: /nonexistent } }
    - { name: b, bmc: { address: "redfish+http://127.0.0.1:1/redfish/v1/Systems/1" } }
`);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toStartWith(
      "machine a, b: BMC redfish+http://127.0.0.1:1/redfish/v1/Systems/1: cannot read the credentials:",
    );
    const refused = await preflight(`
inventory: { machines: [{ name: b, bmc: { address: "redfish+http://127.0.0.1:1/redfish/v1/Systems/1" } }] }
`);
    expect(refused[0]).toEndWith("check the address and that the manager can reach the BMC");
  });

  test("the total time is bounded: what is not asked in time is reported, not passed", async () => {
    const server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: () => Bun.sleep(1000).then(() => Response.json({ PowerState: "On" })),
    });
    stop = () => void server.stop(true);
    const machines = Array.from(
      { length: 6 },
      (_, i) => `{ name: m${i}, bmc: { address: "redfish+http://127.0.0.1:${server.port}/redfish/v1/Systems/${i}" } }`,
    );
    const started = performance.now();
    const problems = await preflight(`inventory: { machines: [${machines.join(", ")}] }`, [], 100);
    expect(performance.now() - started).toBeLessThan(900);
    expect(problems).toEqual(["6 BMC(s) not checked: the BMCs together took over 100 ms"]);
  });
});
