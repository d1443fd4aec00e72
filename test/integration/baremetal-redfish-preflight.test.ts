/**
 * The bare-metal preflight (`cloud-controller-manager check`) against sushy-tools' Redfish emulator, with
 * credentials from a directory: a machine whose address names a system the emulator has passes, one with
 * a wrong system id gets the 404 sentence, one with a wrong password the refused-credentials sentence.
 * Needs no API server: the preflight asks only the BMCs.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseBaremetalConfig } from "../../providers/baremetal/index.ts";
import { createBaremetalProvider } from "../../providers/baremetal/provider.ts";
import { testProviderContext } from "../harness/provider-context.ts";
import { startSushy, type Sushy } from "../harness/sushy.ts";

// The first run installs sushy-tools into the cache.
setDefaultTimeout(120_000);

let sushy: Sushy;
let dir: string;

beforeAll(async () => {
  sushy = await startSushy({
    username: "admin",
    password: "s3cret",
    systems: [
      { uuid: "preflight-1", name: "preflight-1", powerState: "On" },
      { uuid: "preflight-2", name: "preflight-2", powerState: "Off" },
    ],
  });
  dir = mkdtempSync(join(tmpdir(), "bmc-preflight-"));
}, 240_000);

afterAll(async () => {
  await sushy?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function directory(name: string, password: string): string {
  const path = join(dir, name);
  mkdirSync(path);
  writeFileSync(join(path, "username"), "admin\n");
  writeFileSync(join(path, "password"), `${password}\n`);
  return path;
}

test("a good system gives no problem; a wrong system id and a wrong password give one sentence each", async () => {
  const good = directory("good", "s3cret");
  const bad = directory("bad", "wrong");
  const yaml = `
inventory:
  machines:
    - { name: good, bmc: { address: "${sushy.address("preflight-1")}", credentialsDirectory: ${good} } }
    - { name: typo, bmc: { address: "${sushy.address("preflight-9")}", credentialsDirectory: ${good} } }
    - { name: refused, bmc: { address: "${sushy.address("preflight-2")}", credentialsDirectory: ${bad} } }
`;
  const parsed = parseBaremetalConfig(yaml);
  if (!parsed.ok) throw new Error(parsed.errors.join("; "));
  const provider = createBaremetalProvider({ config: parsed.config, path: "" }, testProviderContext());
  try {
    expect(await provider.preflight?.(new AbortController().signal)).toEqual([
      `machine typo: BMC ${sushy.address("preflight-9")} has no such system (HTTP 404): the address's /Systems/<id> is wrong; see the BMC's /redfish/v1/Systems for the id`,
      `machine refused: BMC ${sushy.address("preflight-2")} refused the credentials (HTTP 401); fix the files username and password in ${bad}`,
    ]);
  } finally {
    await provider.close?.();
  }
});
