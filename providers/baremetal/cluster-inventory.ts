/**
 * The inventory from BareMetalMachine objects (`inventory: { source: cluster }`), on the leader: the
 * objects are watched, and every add, edit or delete applies to the next instance call. Until they are
 * listed every node is "unknown" (an error, never "gone"), and `/readyz` fails its
 * `provider-inventory` check. An object that cannot be used gets a Warning event (`InvalidMachine`) and
 * a log line, once per problem; the rules for what it then means are in machine-objects.ts.
 */
import type { ProviderInit } from "../../src/cloud/provider.ts";
import type { EventRecorder } from "../../src/kube/events.ts";
import { Informer } from "../../src/kube/informer.ts";
import type { Logger } from "../../src/log/logger.ts";
import { GROUP, VERSION } from "../shared/crd.ts";
import type { Inventory, Machine } from "./inventory.ts";
import { BARE_METAL_MACHINE_KIND, BARE_METAL_MACHINES } from "./machine-crd.ts";
import { machinesFromObjects, type MachineObject, type MachineSet, type ObjectVerdict } from "./machine-objects.ts";

export const INVALID_MACHINE_REASON = "InvalidMachine";
const UNREAD = "BareMetalMachine objects not read yet (is the CRD installed?)";

export interface ClusterInventory {
  /** The inventory now: the file's layers and policy (`base`) with the objects' machines. */
  inventory(): Inventory;
  /** On the leader: lists and watches until `init.signal` aborts. */
  start(init: ProviderInit): void;
}

function messageOf(verdict: ObjectVerdict): string {
  const what = verdict.keptEarlier
    ? "cannot be read; its last readable version stays in force"
    : "is not used; the nodes it names are left alone (neither initialised, tainted nor deleted)";
  return `${what}: ${verdict.problems.join("; ")}`;
}

/** Warns once per object and problem; forgets objects that became usable or were deleted. */
function reporter(logger: Logger): (verdicts: readonly ObjectVerdict[], recorder?: EventRecorder) => void {
  let told = new Map<string, string>();
  return (verdicts, recorder) => {
    const next = new Map<string, string>();
    for (const verdict of verdicts.filter((v) => v.problems.length > 0)) {
      const name = verdict.object.metadata.name;
      const message = messageOf(verdict);
      next.set(name, message);
      if (told.get(name) === message) continue;
      logger.warn(`BareMetalMachine ${name} ${message}`);
      const object = { ...verdict.object, apiVersion: `${GROUP}/${VERSION}`, kind: BARE_METAL_MACHINE_KIND.kind };
      recorder?.event(object, "Warning", INVALID_MACHINE_REASON, message);
    }
    told = next;
  };
}

export function createClusterInventory(o: { base: () => Inventory; logger: Logger }): ClusterInventory {
  let informer: Informer<MachineObject> | undefined;
  let recorder: EventRecorder | undefined;
  let readable: ReadonlyMap<string, Machine> = new Map();
  let built: { base: Inventory; set: MachineSet } | undefined;
  /** Objects changed since the last rebuild: the initial list's adds come as one event each. */
  let changed = false;
  const report = reporter(o.logger);

  const rebuild = (): MachineSet => {
    const base = o.base();
    const set = machinesFromObjects(base, informer?.list() ?? [], readable);
    readable = set.readable;
    built = { base, set };
    changed = false;
    report(set.verdicts, recorder);
    return set;
  };

  return {
    inventory() {
      if (!informer?.synced) return { ...o.base(), unread: UNREAD };
      // A live edit of the file (racks, defaults, unmatchedNodes) counts like an edit of the objects.
      return (built?.base === o.base() && !changed ? built.set : rebuild()).inventory;
    },
    start(init) {
      recorder = init.recorder;
      const watched = new Informer<MachineObject>({ api: init.kube, resource: BARE_METAL_MACHINES, logger: o.logger });
      informer = watched;
      // One rebuild per burst of events (the initial list, a kubectl apply of many), not one per object;
      // it still runs at once, so a Warning about a bad object does not wait for the next lookup.
      const changes = (): void => {
        if (changed) return;
        changed = true;
        queueMicrotask(() => changed && rebuild());
      };
      watched.addHandler({ add: changes, update: changes, delete: changes });
      init.addReadinessCheck?.("inventory", () => (watched.synced ? undefined : UNREAD));
      void watched.run(init.signal);
      void watched.waitForSync(init.signal).then((synced) => {
        if (!synced) return;
        const inv = rebuild().inventory;
        o.logger.info(
          `inventory from BareMetalMachine objects: ${inv.byName.size} machine(s), ${inv.patterns.length} pattern(s)`,
        );
      });
    },
  };
}
