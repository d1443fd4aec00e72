/**
 * Bare metal with `inventory.source: cluster`: the machines are BareMetalMachine objects, read live by the
 * manager (a real process, as the restricted identity, against the real API server). A Node gets its
 * metadata from its object; an edit of the object applies to the running manager; an object that cannot
 * be read gets a Warning event and changes nothing. Skipped, with the reason in its name, while the build
 * lacks the node or node-lifecycle controller.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ControlPlane } from "../../scripts/control-plane/control-plane.ts";
import { controllerFactories } from "../../src/app/controllers.ts";
import type { KubeObject, Node } from "../../src/kube/objects.ts";
import { LABEL_INSTANCE_TYPE, LABEL_ZONE, TAINT_SHUTDOWN } from "../../src/kube/well-known.ts";
import { BARE_METAL_MACHINES } from "../../providers/baremetal/machine-crd.ts";
import { GROUP, VERSION } from "../../providers/shared/crd.ts";
import { startCcm, type CcmProcess } from "../harness/ccm.ts";
import { controlPlane } from "../harness/control-plane.ts";
import { kubeletNode, uniqueName } from "../harness/fixtures.ts";
import { eventually, holds } from "../harness/wait.ts";
import { deleteNodes, getNode, isInitialised, nodeControllerFlags, registerNode, setReady } from "./nodes.ts";
import { eventsFor } from "./support.ts";

const controllersAvailable = ["cloud-node-controller", "cloud-node-lifecycle-controller"].every(
  (name) => controllerFactories()[name as never] !== undefined,
);
const taintKeys = (node: Node | undefined): string[] => (node?.spec?.taints ?? []).map((t) => t.key);

setDefaultTimeout(120_000);

function machine(name: string, spec: Record<string, unknown>): KubeObject & { spec: Record<string, unknown> } {
  return { apiVersion: `${GROUP}/${VERSION}`, kind: "BareMetalMachine", metadata: { name }, spec };
}

describe.skipIf(!controllersAvailable)("bare metal with BareMetalMachine objects (needs the node controllers)", () => {
  let cp: ControlPlane;
  let ccm: CcmProcess;
  const prefix = uniqueName("bmm");
  const names = { a: `${prefix}-a`, b: `${prefix}-b`, rest: `${prefix}-rest` };
  const editSpec = (name: string, spec: Record<string, unknown>): Promise<unknown> =>
    cp.admin.patch(BARE_METAL_MACHINES, name, { spec }, { type: "merge" });
  /** The first InvalidMachine Warning on the object (events about cluster-scoped objects go to default). */
  const warning = async (name: string): Promise<string | undefined> =>
    (await eventsFor(cp.admin, "default", "BareMetalMachine", name)).find(
      (e) => e.type === "Warning" && e.reason === "InvalidMachine",
    )?.message;

  beforeAll(async () => {
    cp = await controlPlane();
    await cp.admin.create(
      BARE_METAL_MACHINES,
      machine(names.a, { zone: "zone-cr", instanceType: "metal.cr", labels: { "example.com/from": "cr" } }),
    );
    // Every other node of this test is gone, unless an object names it: what an unreadable object must not undo.
    await cp.admin.create(BARE_METAL_MACHINES, machine(names.rest, { pattern: `${prefix}-*`, decommissioned: true }));
    await cp.admin.create(BARE_METAL_MACHINES, machine(names.b, { rack: "no-such-rack" }));
    await registerNode(cp, kubeletNode(names.a, { ready: true, nodeIP: "10.41.0.1" }));
    await registerNode(cp, kubeletNode(names.b, { ready: false, nodeIP: "10.41.0.2" }));
    const config = join(mkdtempSync(join(tmpdir(), "baremetal-inventory-")), "cloud.yaml");
    writeFileSync(config, "inventory: { source: cluster, racks: [{ name: r1, zone: zone-r1 }] }\n");
    ccm = startCcm({ args: nodeControllerFlags(cp, "baremetal", config) });
    await ccm.waitForLine(/inventory from BareMetalMachine objects: 1 machine\(s\), 1 pattern\(s\)/, 60_000);
  }, 240_000);

  afterAll(async () => {
    await ccm?.stop();
    for (const name of Object.values(names)) await cp.admin.delete(BARE_METAL_MACHINES, name).catch(() => undefined);
    await deleteNodes(cp, [names.a, names.b]);
  }, 60_000);

  test("a Node gets its metadata from its BareMetalMachine", async () => {
    const node = await eventually(
      `node ${names.a} initialised`,
      async () => {
        const n = await getNode(cp, names.a);
        return isInitialised(n) ? n : undefined;
      },
      60_000,
    );
    expect(node.spec?.providerID).toBe(`baremetal://${names.a}`);
    expect(node.metadata.labels).toMatchObject({
      [LABEL_ZONE]: "zone-cr",
      [LABEL_INSTANCE_TYPE]: "metal.cr",
      "example.com/from": "cr",
    });
  });

  test("an object that cannot be read: a Warning event, and its node neither initialised nor deleted", async () => {
    const message = await eventually("a Warning event on the unreadable object", () => warning(names.b), 30_000);
    expect(message).toContain('spec.rack: no rack named "no-such-rack"');
    // Several node-monitor periods (1 s).
    await holds(`${names.b} kept, not initialised`, 6_000, async () => {
      const node = await getNode(cp, names.b);
      return node !== undefined && !isInitialised(node);
    });
  });

  test("an edit applies live: shutdown: true taints the NotReady node", async () => {
    await setReady(cp, names.a, false);
    await holds(
      `${names.a} untainted`,
      3_000,
      async () => !taintKeys(await getNode(cp, names.a)).includes(TAINT_SHUTDOWN),
    );
    await editSpec(names.a, { shutdown: true });
    await eventually(
      `shutdown taint on ${names.a}`,
      async () => taintKeys(await getNode(cp, names.a)).includes(TAINT_SHUTDOWN),
      30_000,
    );
  });

  test("an edit that cannot be read: a Warning event, and the last readable version stays in force", async () => {
    await editSpec(names.a, { rack: "no-such-rack" });
    const message = await eventually("a Warning event on the edited object", () => warning(names.a), 30_000);
    expect(message).toContain("its last readable version stays in force");
    await holds(`${names.a} still there and still tainted`, 5_000, async () =>
      taintKeys(await getNode(cp, names.a)).includes(TAINT_SHUTDOWN),
    );
  });

  test("fixed, the object takes effect; deleted, the file's rule applies (here: the decommissioned pattern)", async () => {
    await editSpec(names.b, { rack: "r1" });
    const node = await eventually(
      `node ${names.b} initialised once its object is fixed`,
      async () => {
        const n = await getNode(cp, names.b);
        return isInitialised(n) ? n : undefined;
      },
      60_000,
    );
    expect(node.metadata.labels?.[LABEL_ZONE]).toBe("zone-r1");
    await cp.admin.delete(BARE_METAL_MACHINES, names.b);
    await eventually(`node ${names.b} deleted`, async () => (await getNode(cp, names.b)) === undefined, 60_000);
  });
});
