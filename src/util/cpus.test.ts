import { describe, expect, test } from "bun:test";
import { cgroupCpuQuota, parseCfsQuota, parseCpuMax, usableCpus } from "./cpus.ts";

const files =
  (entries: Record<string, string>) =>
  (path: string): string | undefined =>
    entries[path];

describe("cpu quota files", () => {
  test.each([
    ["max 100000", undefined],
    ["150000 100000\n", 1.5],
    ["200000 100000", 2],
    ["", undefined],
    ["garbage", undefined],
  ])("cpu.max %j", (text, want) => expect(parseCpuMax(text)).toBe(want));

  test.each([
    ["-1", "100000", undefined],
    ["50000\n", "100000\n", 0.5],
    [undefined, "100000", undefined],
  ])("cfs quota %j / %j", (quota, period, want) => expect(parseCfsQuota(quota, period)).toBe(want));
});

describe("usableCpus", () => {
  const cases: { name: string; files: Record<string, string>; want: number }[] = [
    {
      name: "no cgroup files: the CPUs it may run on",
      files: {},
      want: 16,
    },
    {
      name: "a container of cgroup v2 (namespaced): its limit, rounded up",
      files: { "/proc/self/cgroup": "0::/\n", "/sys/fs/cgroup/cpu.max": "150000 100000\n" },
      want: 2,
    },
    {
      name: "a systemd unit with CPUQuota=300%: the unit's own cgroup",
      files: {
        "/proc/self/cgroup": "0::/system.slice/ccm.service\n",
        "/sys/fs/cgroup/system.slice/ccm.service/cpu.max": "300000 100000",
        "/sys/fs/cgroup/system.slice/cpu.max": "max 100000",
      },
      want: 3,
    },
    {
      name: "a parent's lower quota wins",
      files: {
        "/proc/self/cgroup": "0::/kubepods/pod1/c1\n",
        "/sys/fs/cgroup/kubepods/pod1/c1/cpu.max": "max 100000",
        "/sys/fs/cgroup/kubepods/pod1/cpu.max": "100000 100000",
      },
      want: 1,
    },
    {
      name: "cgroup v1, cpu and cpuacct mounted together",
      files: {
        "/proc/self/cgroup": "4:memory:/x\n3:cpu,cpuacct:/\n0::/\n",
        "/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us": "400000",
        "/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us": "100000",
      },
      want: 4,
    },
    {
      name: "a quota above the CPUs it may run on changes nothing",
      files: { "/proc/self/cgroup": "0::/\n", "/sys/fs/cgroup/cpu.max": "6400000 100000" },
      want: 16,
    },
    {
      name: "a tenth of a CPU is still one",
      files: { "/proc/self/cgroup": "0::/\n", "/sys/fs/cgroup/cpu.max": "10000 100000" },
      want: 1,
    },
  ];
  test.each(cases)("$name", ({ files: entries, want }) => expect(usableCpus(16, files(entries))).toBe(want));

  test("no quota anywhere", () => {
    expect(cgroupCpuQuota(files({ "/proc/self/cgroup": "0::/a\n", "/sys/fs/cgroup/cpu.max": "max 100000" }))).toBe(
      undefined,
    );
  });
});
