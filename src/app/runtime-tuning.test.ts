import { describe, expect, test } from "bun:test";
import {
  FTL_JIT,
  HEAP_SIZING_RAM_BYTES,
  HOLE_PURGE_INTERVAL,
  JSC_RAM_SIZE,
  runtimeTuningEnvironment,
  runsManager,
} from "./runtime-tuning.ts";

const GiB = 2 ** 30;
/** What the manager adds besides the heap sizing, when the environment has neither. */
const DEFAULTS = { [HOLE_PURGE_INTERVAL]: "1000", [FTL_JIT]: "false" };

describe("runtimeTuningEnvironment", () => {
  const base = {
    env: { PATH: "/usr/bin" },
    args: ["--cloud-provider=fake"],
    compiled: true,
    totalMemoryBytes: 24 * GiB,
  };
  test.each([
    [
      "the compiled manager on a big host: sized as for 1 GiB",
      base,
      { PATH: "/usr/bin", [JSC_RAM_SIZE]: String(HEAP_SIZING_RAM_BYTES), ...DEFAULTS },
    ],
    [
      "a host smaller than 1 GiB: its own RAM",
      { ...base, totalMemoryBytes: 512 * 2 ** 20 },
      { PATH: "/usr/bin", [JSC_RAM_SIZE]: String(512 * 2 ** 20), ...DEFAULTS },
    ],
    [
      "all already set (also the opt-out): left alone",
      { ...base, env: { [JSC_RAM_SIZE]: String(24 * GiB), [HOLE_PURGE_INTERVAL]: "100", [FTL_JIT]: "true" } },
      undefined,
    ],
    [
      "one set by the operator: kept, the others added",
      { ...base, env: { [HOLE_PURGE_INTERVAL]: "100" } },
      { [JSC_RAM_SIZE]: String(HEAP_SIZING_RAM_BYTES), [HOLE_PURGE_INTERVAL]: "100", [FTL_JIT]: "false" },
    ],
    [
      "another set: kept, the others added",
      { ...base, env: { [JSC_RAM_SIZE]: String(24 * GiB) } },
      { [JSC_RAM_SIZE]: String(24 * GiB), ...DEFAULTS },
    ],
    [
      "FTL turned back on by the operator: kept, the others added",
      { ...base, env: { [FTL_JIT]: "true" } },
      { [JSC_RAM_SIZE]: String(HEAP_SIZING_RAM_BYTES), [HOLE_PURGE_INTERVAL]: "1000", [FTL_JIT]: "true" },
    ],
    ["a source run under bun: left alone", { ...base, compiled: false }, undefined],
    ["a subcommand: left alone", { ...base, args: ["manifests", "systemd"] }, undefined],
    [
      "`run` is the manager",
      { ...base, args: ["run", "--cloud-provider=fake"] },
      { PATH: "/usr/bin", [JSC_RAM_SIZE]: String(HEAP_SIZING_RAM_BYTES), ...DEFAULTS },
    ],
  ])("%s", (_name, input, expected) => {
    expect(runtimeTuningEnvironment(input)).toEqual(expected);
  });
});

describe("runsManager", () => {
  test.each([
    [[], true],
    [["--cloud-provider=aws", "--v=2"], true],
    [["run"], true],
    [["check", "--cloud-provider=aws"], false],
    [["--version"], false],
    [["--help"], false],
    [["-h"], false],
  ] as const)("%j → %p", (args, expected) => {
    expect(runsManager(args)).toBe(expected);
  });
});
