import { describe, expect, test } from "bun:test";
import { kindOfThread, readThreadCpu, threadCpuOf } from "./proc-stats.ts";

const PID = 100;

describe("kind of thread", () => {
  const cases = [
    { tid: PID, name: "cloud-controlle", kind: "main" },
    { tid: 101, name: "Worker", kind: "controllers" },
    { tid: 102, name: "JITWorker", kind: "jit" },
    { tid: 103, name: "HeapHelper", kind: "gc" },
    { tid: 104, name: "ollector Thread", kind: "gc" },
    { tid: 105, name: "mi-scavenger", kind: "other" },
    { tid: 106, name: "HTTP Client", kind: "other" },
    { tid: 107, name: "cloud-controlle", kind: "other" },
  ] as const;
  for (const c of cases) test(`${c.name} (${c.tid})`, () => expect(kindOfThread(PID, c)).toBe(c.kind));
});

describe("CPU by kind of thread", () => {
  test("adds up each kind's threads", () => {
    const tasks = [
      { tid: PID, name: "ccm", seconds: 1.2 },
      { tid: 102, name: "Worker", seconds: 1.75 },
      { tid: 101, name: "Worker", seconds: 1.5 },
      { tid: 103, name: "JITWorker", seconds: 0.5 },
      { tid: 104, name: "JITWorker", seconds: 0.25 },
    ];
    expect(threadCpuOf(PID, tasks)).toEqual({
      main: 1.2,
      controllers: 3.25,
      jit: 0.75,
      gc: 0,
      other: 0,
      perController: [1.5, 1.75], // by thread id: the order the threads started
    });
  });

  test("of this live process: its main thread is there, and the total is no more than the process's", () => {
    const cpu = readThreadCpu(process.pid);
    if (!cpu) throw new Error("no CPU read for this process");
    const sum = cpu.main + cpu.controllers + cpu.jit + cpu.gc + cpu.other;
    const { user, system } = process.cpuUsage();
    expect(cpu.main).toBeGreaterThan(0);
    expect(sum).toBeLessThanOrEqual((user + system) / 1e6 + 0.02);
  });

  test("of a process that is gone: undefined", () => expect(readThreadCpu(2 ** 22 + 1)).toBeUndefined());
});
