import { describe, expect, test } from "bun:test";
import { InstanceNotFoundError } from "../../src/cloud/errors.ts";
import type { BmcSettings } from "./bmc-config.ts";
import { parseBaremetalConfig } from "./config.ts";
import { node } from "./fixtures.test-support.ts";
import { inventoryInstances } from "./instances.ts";
import type { PowerVerdict } from "./power-state.ts";

const INVENTORY = `
inventory:
  machines:
    - { name: off, bmc: { address: "redfish://bmc/redfish/v1/Systems/off" } }
    - { name: on, bmc: { address: "redfish://bmc/redfish/v1/Systems/on" } }
    - { name: removed, bmc: { address: "redfish://bmc/redfish/v1/Systems/removed" } }
    - { name: silent, bmc: { address: "redfish://bmc/redfish/v1/Systems/silent" } }
    - { name: by-hand, shutdown: true }
    - { name: old, decommissioned: true, bmc: { address: "redfish://bmc/redfish/v1/Systems/old" } }
`;

const VERDICTS: Record<string, PowerVerdict> = {
  off: { kind: "shutdown" },
  on: { kind: "running", powerState: "On" },
  removed: { kind: "gone" },
  silent: { kind: "unknown", reason: "no answer: connection refused" },
};

function instances(asked: string[] = []) {
  const parsed = parseBaremetalConfig(INVENTORY);
  if (!parsed.ok) throw new Error(parsed.errors.join("\n"));
  const power = (bmc: BmcSettings): Promise<PowerVerdict> => {
    const id = bmc.url.split("/").pop() ?? "";
    asked.push(id);
    return Promise.resolve(VERDICTS[id] ?? { kind: "unknown", reason: "not in the table" });
  };
  return inventoryInstances(() => parsed.config.inventory, power);
}

describe("instances of machines with a BMC", () => {
  test("the batch: each node's state from its BMC; a silent BMC is an error for that node alone", async () => {
    const asked: string[] = [];
    const names = ["off", "on", "removed", "silent", "by-hand", "old", "stranger"];
    const answers = await instances(asked).batch!.instanceStateBatch(names.map((n) => node(n)));
    const shown = answers.map((a) => ("value" in a ? a.value : `error: ${a.error.message}`));
    expect(shown).toEqual([
      { exists: true, shutdown: true },
      { exists: true, shutdown: false },
      { exists: false },
      "error: cannot tell the power state of node silent (BMC redfish://bmc/redfish/v1/Systems/silent): " +
        "no answer: connection refused",
      { exists: true, shutdown: true },
      { exists: false },
      { exists: true, shutdown: false },
    ]);
    // A decommissioned machine is gone whatever its BMC would say.
    expect(asked).toEqual(["off", "on", "removed", "silent"]);
  });

  test("single-node calls: exists and shutdown from the BMC; unknown throws a plain error", async () => {
    const i = instances();
    expect(await i.instanceExists(node("off"))).toBe(true);
    expect(await i.instanceShutdown(node("off"))).toBe(true);
    expect(await i.instanceShutdown(node("on"))).toBe(false);
    expect(await i.instanceExists(node("removed"))).toBe(false);
    const gone = await i.instanceShutdown(node("removed")).catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(InstanceNotFoundError);
    const silent = await i.instanceExists(node("silent")).catch((e: unknown) => e);
    expect(silent).toBeInstanceOf(Error);
    expect(silent).not.toBeInstanceOf(InstanceNotFoundError);
  });

  test("metadata comes from the inventory, without asking any BMC", async () => {
    const asked: string[] = [];
    const metadata = await instances(asked).instanceMetadata(node("removed"));
    expect(metadata?.providerID).toBe("baremetal://removed");
    expect(asked).toEqual([]);
  });
});

describe("instances while nothing is known about a node (BareMetalMachine objects unread or unreadable)", () => {
  test("every call fails with a plain error: never gone, never shut down, never initialised", async () => {
    const parsed = parseBaremetalConfig("inventory: { source: cluster, unmatchedNodes: delete }");
    if (!parsed.ok) throw new Error(parsed.errors.join("\n"));
    const i = inventoryInstances(() => ({ ...parsed.config.inventory, unread: "objects not read yet" }));
    const calls = [
      i.instanceExists(node("a")),
      i.instanceShutdown(node("a")),
      i.instanceMetadata(node("a")),
      i.batch!.instanceStateBatch([node("a")]).then(([a]) => Promise.reject((a as { error: Error }).error)),
      i.batch!.instanceMetadataBatch([node("a")]).then(([a]) => Promise.reject((a as { error: Error }).error)),
    ];
    for (const call of calls) {
      const error = await call.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(Error);
      expect(error).not.toBeInstanceOf(InstanceNotFoundError);
      expect((error as Error).message).toContain("objects not read yet");
    }
  });
});
