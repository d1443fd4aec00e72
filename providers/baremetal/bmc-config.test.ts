import { describe, expect, test } from "bun:test";
import { redfishSystemUrl } from "./bmc-config.ts";
import { parseBaremetalConfig } from "./config.ts";

const machine = (bmc: string, extra = ""): string => `inventory: { machines: [{ name: w1, bmc: ${bmc}${extra} }] }`;

function bmcOf(yaml: string): unknown {
  const parsed = parseBaremetalConfig(yaml);
  if (!parsed.ok) throw new Error(parsed.errors.join("\n"));
  return parsed.config.inventory.byName.get("w1")?.bmc;
}

function errorsOf(yaml: string): string[] {
  const parsed = parseBaremetalConfig(yaml);
  return parsed.ok ? [] : parsed.errors;
}

describe("BMC addresses (metal3's syntax)", () => {
  const cases: [string, string][] = [
    ["redfish://10.0.9.11/redfish/v1/Systems/1", "https://10.0.9.11/redfish/v1/Systems/1"],
    ["redfish+https://bmc.example:8443/redfish/v1/Systems/abc/", "https://bmc.example:8443/redfish/v1/Systems/abc"],
    ["redfish+http://127.0.0.1:8000/redfish/v1/Systems/uuid-1", "http://127.0.0.1:8000/redfish/v1/Systems/uuid-1"],
    [
      "https://[fd00::9]/redfish/v1/Systems/System.Embedded.1",
      "https://[fd00::9]/redfish/v1/Systems/System.Embedded.1",
    ],
    ["http://bmc/redfish/v1/Systems/1", "http://bmc/redfish/v1/Systems/1"],
    // metal3's other Redfish drivers, copied from a BareMetalHost as they are.
    [
      "idrac-redfish://10.0.9.12/redfish/v1/Systems/System.Embedded.1",
      "https://10.0.9.12/redfish/v1/Systems/System.Embedded.1",
    ],
    [
      "idrac-virtualmedia+https://d/redfish/v1/Systems/System.Embedded.1",
      "https://d/redfish/v1/Systems/System.Embedded.1",
    ],
    ["ilo5-redfish://ilo.example/redfish/v1/Systems/1", "https://ilo.example/redfish/v1/Systems/1"],
    ["redfish-virtualmedia+http://127.0.0.1:8000/redfish/v1/Systems/u", "http://127.0.0.1:8000/redfish/v1/Systems/u"],
  ];
  test.each(cases)("%s → %s", (address, url) => {
    expect(redfishSystemUrl(address)).toEqual({ url });
  });

  const bad: [string, RegExp][] = [
    ["ipmi://10.0.9.11", /the scheme must be redfish:\/\//],
    ["idrac://10.0.9.11/redfish/v1/Systems/1", /over Redfish only \(not IPMI, iRMC or iLO 4\)/],
    ["ilo4://10.0.9.11/redfish/v1/Systems/1", /the scheme must be/],
    ["redfish://10.0.9.11", /must name one system: redfish:\/\/<host>\/redfish\/v1\/Systems\/<id>/],
    ["redfish://10.0.9.11/redfish/v1/Systems", /must name one system/],
    ["redfish://admin:pw@10.0.9.11/redfish/v1/Systems/1", /no user, password or query in the address/],
    ["not a url", /is not a URL/],
  ];
  test.each(bad)("%s is refused", (address, problem) => {
    const found = redfishSystemUrl(address);
    expect("problem" in found ? found.problem : "").toMatch(problem);
  });
});

describe("a machine's bmc", () => {
  test("a Secret in the manager's namespace by default, or a named one; a directory; none", () => {
    expect(bmcOf(machine("{ address: 'redfish://b/redfish/v1/Systems/1', credentialsName: w1-bmc }"))).toEqual({
      url: "https://b/redfish/v1/Systems/1",
      address: "redfish://b/redfish/v1/Systems/1",
      credentials: { kind: "secret", namespace: "", name: "w1-bmc" },
      disableCertificateVerification: false,
      caFile: undefined,
    });
    const named = "{ address: 'redfish://b/redfish/v1/Systems/1', credentialsName: s, credentialsNamespace: metal }";
    expect(bmcOf(machine(named))).toMatchObject({ credentials: { kind: "secret", namespace: "metal", name: "s" } });
    const dir = "{ address: 'redfish://b/redfish/v1/Systems/1', credentialsDirectory: /etc/bmc/w1, caFile: /ca.pem }";
    expect(bmcOf(machine(dir))).toMatchObject({
      credentials: { kind: "directory", path: "/etc/bmc/w1" },
      caFile: "/ca.pem",
    });
    const none = "{ address: 'redfish+http://b/redfish/v1/Systems/1', disableCertificateVerification: true }";
    expect(bmcOf(machine(none))).toMatchObject({ credentials: { kind: "none" }, disableCertificateVerification: true });
  });

  const problems: [string, string, string][] = [
    ["no address", "{ credentialsName: s }", "inventory.machines[0].bmc.address: is required"],
    ["a bad address", "{ address: 'ipmi://b' }", 'inventory.machines[0].bmc.address: "ipmi://b": the scheme'],
    ["an unknown field", "{ address: 'redfish://b/redfish/v1/Systems/1', user: x }", "inventory.machines[0].bmc.user"],
    [
      "Secret and directory",
      "{ address: 'redfish://b/redfish/v1/Systems/1', credentialsName: s, credentialsDirectory: /d }",
      "inventory.machines[0].bmc: give credentialsName (a Secret) or credentialsDirectory (files), not both",
    ],
    [
      "a namespace without a name",
      "{ address: 'redfish://b/redfish/v1/Systems/1', credentialsNamespace: metal }",
      "inventory.machines[0].bmc.credentialsNamespace: needs credentialsName",
    ],
    [
      "a bad Secret name",
      "{ address: 'redfish://b/redfish/v1/Systems/1', credentialsName: Bad_Name }",
      'inventory.machines[0].bmc.credentialsName: "Bad_Name" is not a valid Secret name',
    ],
    [
      "caFile and no verification",
      "{ address: 'redfish://b/redfish/v1/Systems/1', caFile: /ca, disableCertificateVerification: true }",
      "inventory.machines[0].bmc: give caFile or disableCertificateVerification, not both",
    ],
    ["not a mapping", "redfish://b/redfish/v1/Systems/1", "inventory.machines[0].bmc: must be a mapping"],
  ];
  test.each(problems)("%s: one line naming the key", (_, bmc, line) => {
    const errors = errorsOf(machine(bmc));
    expect(errors.some((e) => e.startsWith(line))).toBe(true);
  });

  test("shutdown is the BMC's to say once a machine names one", () => {
    expect(errorsOf(machine("{ address: 'redfish://b/redfish/v1/Systems/1' }", ", shutdown: false"))).toEqual([
      "inventory.machines[0].shutdown: is read from the BMC when the machine names one; remove shutdown or bmc",
    ]);
  });

  test("a pattern entry cannot name one BMC", () => {
    const yaml = "inventory: { machines: [{ pattern: 'w-*', bmc: { address: 'redfish://b/redfish/v1/Systems/1' } }] }";
    expect(errorsOf(yaml)).toEqual([
      "inventory.machines[0].bmc: belongs to one machine; a pattern entry matches many nodes",
    ]);
  });
});
