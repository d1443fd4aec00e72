/**
 * Real power state through Redfish: the whole manager with `--cloud-provider=baremetal` against the real
 * kube-apiserver (restricted CCM identity), each machine naming a system of sushy-tools' Redfish emulator
 * (fake driver, basic auth from an htpasswd file). The credentials come from Secrets the manager reads.
 * Skipped, with the reason in its name, while the build lacks the node or node-lifecycle controller.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ControlPlane } from "../../scripts/control-plane/control-plane.ts";
import { controllerFactories } from "../../src/app/controllers.ts";
import type { Resource } from "../../src/kube/api.ts";
import type { Node } from "../../src/kube/objects.ts";
import { TAINT_SHUTDOWN } from "../../src/kube/well-known.ts";
import { parseBaremetalConfig } from "../../providers/baremetal/index.ts";
import { startCcm, type CcmProcess } from "../harness/ccm.ts";
import { controlPlane } from "../harness/control-plane.ts";
import { kubeletNode, uniqueName } from "../harness/fixtures.ts";
import { startSushy, type Sushy } from "../harness/sushy.ts";
import { eventually, holds } from "../harness/wait.ts";
import { deleteNodes, getNode, isInitialised, nodeControllerFlags, registerNode, setReady } from "./nodes.ts";

const SECRETS: Resource = { group: "", version: "v1", plural: "secrets", kind: "Secret", namespaced: true };
const controllersAvailable = ["cloud-node-controller", "cloud-node-lifecycle-controller"].every(
  (name) => controllerFactories()[name as never] !== undefined,
);
const taintKeys = (node: Node | undefined): string[] => (node?.spec?.taints ?? []).map((t) => t.key);
const base64 = (text: string): string => Buffer.from(text).toString("base64");

// Each case waits on a real API server, a CCM and an emulator that applies power changes 1 to 11 s late.
setDefaultTimeout(120_000);

describe.skipIf(!controllersAvailable)("baremetal power state from Redfish (needs the node controllers)", () => {
  let cp: ControlPlane;
  let sushy: Sushy;
  let ccm: CcmProcess;
  const prefix = uniqueName("bmc");
  const names = { cycled: `${prefix}-cycled`, refused: `${prefix}-refused`, removed: `${prefix}-removed` };
  const secret = (name: string, password: string) => ({
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name },
    data: { username: base64("admin"), password: base64(password) },
  });

  beforeAll(async () => {
    cp = await controlPlane();
    sushy = await startSushy({
      username: "admin",
      password: "s3cret",
      systems: [
        { uuid: `${prefix}-1`, name: names.cycled, powerState: "On" },
        { uuid: `${prefix}-2`, name: names.refused, powerState: "Off" },
        { uuid: `${prefix}-3`, name: names.removed, powerState: "On" },
      ],
    });
    await cp.admin.create(SECRETS, secret(`${prefix}-good`, "s3cret"), { namespace: "kube-system" });
    await cp.admin.create(SECRETS, secret(`${prefix}-bad`, "wrong"), { namespace: "kube-system" });
    const yaml = `
inventory:
  machines:
    - { name: ${names.cycled}, bmc: { address: "${sushy.address(`${prefix}-1`)}", credentialsName: ${prefix}-good } }
    - { name: ${names.refused}, bmc: { address: "${sushy.address(`${prefix}-2`)}", credentialsName: ${prefix}-bad } }
    - bmc: { address: "${sushy.address(`${prefix}-3`)}", credentialsName: ${prefix}-good, credentialsNamespace: kube-system }
      name: ${names.removed}
`;
    const parsed = parseBaremetalConfig(yaml);
    if (!parsed.ok) throw new Error(parsed.errors.join("; "));
    const config = join(mkdtempSync(join(tmpdir(), "baremetal-redfish-")), "cloud.yaml");
    writeFileSync(config, yaml);
    ccm = startCcm({ args: nodeControllerFlags(cp, "baremetal", config) });
    for (const name of Object.values(names)) {
      await registerNode(cp, kubeletNode(name, { ready: true, nodeIP: "10.40.0.1" }));
      await eventually(`node ${name} initialised`, async () => isInitialised(await getNode(cp, name)), 60_000);
      await setReady(cp, name, false);
    }
  }, 240_000);

  afterAll(async () => {
    await ccm?.stop();
    await sushy?.stop();
    await deleteNodes(cp, Object.values(names));
  }, 60_000);

  test("the BMC powers the machine off: the NotReady node gets the shutdown taint; back on and Ready, it goes", async () => {
    const name = names.cycled;
    await holds(
      `${name} untainted while its BMC says On`,
      4_000,
      async () => !taintKeys(await getNode(cp, name)).includes(TAINT_SHUTDOWN),
    );
    await sushy.reset(`${prefix}-1`, "ForceOff");
    await eventually(
      `shutdown taint on ${name}`,
      async () => taintKeys(await getNode(cp, name)).includes(TAINT_SHUTDOWN),
      60_000,
    );
    await sushy.reset(`${prefix}-1`, "On");
    await eventually("the emulator to apply On", async () => (await sushy.powerState(`${prefix}-1`)) === "On", 30_000);
    await setReady(cp, name, true);
    await eventually(
      `shutdown taint removed from ${name}`,
      async () => !taintKeys(await getNode(cp, name)).includes(TAINT_SHUTDOWN),
      60_000,
    );
  });

  test("credentials the BMC refuses: an error for that node, never the shutdown taint its Off system would give", async () => {
    const name = names.refused;
    await ccm.waitForLine(new RegExp(`could not check .*${name}: .*HTTP 401: the BMC refused the credentials`), 30_000);
    await holds(`${name} neither tainted nor deleted`, 5_000, async () => {
      const node = await getNode(cp, name);
      return node !== undefined && !taintKeys(node).includes(TAINT_SHUTDOWN);
    });
  });

  test("a system the BMC no longer has (HTTP 404): its NotReady node is deleted", async () => {
    const name = names.removed;
    await sushy.remove(`${prefix}-3`);
    await eventually(`node ${name} deleted`, async () => (await getNode(cp, name)) === undefined, 60_000);
  });

  test("the BMC unreachable: nodes are neither deleted nor tainted", async () => {
    const name = names.cycled;
    // Past the manager's 5 s cache of the last Off answer, so what it holds is On or nothing.
    await Bun.sleep(6_000);
    await setReady(cp, name, false);
    await sushy.stop();
    await ccm.waitForLine(new RegExp(`could not check .*: cannot tell the power state of node .*no answer`), 30_000);
    await holds(`${name} neither tainted nor deleted while its BMC is down`, 8_000, async () => {
      const node = await getNode(cp, name);
      return node !== undefined && !taintKeys(node).includes(TAINT_SHUTDOWN);
    });
    expect(await getNode(cp, names.refused)).toBeDefined();
  });
});
