import { expect, test } from "bun:test";
import { AllocationTable, type Holding } from "./allocation-table.ts";

const holding = (id: string, addresses: string[], retiring: string[] = []): Holding => ({
  id,
  service: `default/${id}`,
  addresses,
  retiring,
  backend: "",
  ports: [],
});

test("onFreed: called when a holding lets go of an address, not when it takes one or only starts giving it up", () => {
  let freed = 0;
  const table = new AllocationTable({ onFreed: () => freed++ });
  const steps: [string, () => void, number][] = [
    ["takes one", () => table.set(holding("a", ["10.0.0.1"])), 0],
    ["takes a second", () => table.set(holding("a", ["10.0.0.1", "10.0.0.2"])), 0],
    ["retires both (still shown)", () => table.set(holding("a", [], ["10.0.0.1", "10.0.0.2"])), 0],
    ["one no longer shown", () => table.set(holding("a", [], ["10.0.0.2"])), 1],
    ["released", () => table.release("a"), 2],
    ["released again (nothing held)", () => table.release("a"), 2],
  ];
  for (const [step, run, want] of steps) {
    run();
    expect({ step, freed }).toEqual({ step, freed: want });
  }
});
