/**
 * How many CPUs this process may use: the CPUs it may run on, lowered to its cgroup's CPU quota rounded
 * up (a container's `resources.limits.cpu`, a unit's `CPUQuota=`), as Go sets GOMAXPROCS since 1.25. The
 * quota is the lowest of the process's cgroup and its ancestors' (v2 `cpu.max`, v1 `cpu.cfs_quota_us`).
 * The files are read through `read` (`readHostFile` at the entry point); a file not there is no limit.
 */
import { readFileSync } from "node:fs";

/** A file's text, or undefined when it cannot be read. */
export type ReadFile = (path: string) => string | undefined;

const ROOT = "/sys/fs/cgroup";

/** The host's file, as the entry point and the tests read it. */
export function readHostFile(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

export function usableCpus(available: number, read: ReadFile): number {
  const quota = cgroupCpuQuota(read);
  return quota === undefined ? available : Math.max(1, Math.min(available, Math.ceil(quota)));
}

/** CPUs' worth of quota, or undefined without one. */
export function cgroupCpuQuota(read: ReadFile): number | undefined {
  const quotas = cgroupsOf(read("/proc/self/cgroup") ?? "").flatMap(({ controllers, path }) =>
    ancestors(path).map((dir) => quotaAt(read, controllers, dir)),
  );
  const found = quotas.filter((q): q is number => q !== undefined);
  return found.length > 0 ? Math.min(...found) : undefined;
}

/** The quota set on one cgroup directory: v2 (no controller names) or v1's `cpu` hierarchy. */
function quotaAt(read: ReadFile, controllers: string, dir: string): number | undefined {
  if (controllers === "") return parseCpuMax(read(`${ROOT}${dir}/cpu.max`));
  if (!controllers.split(",").includes("cpu")) return undefined;
  const base = `${ROOT}/${controllers}${dir}`;
  return parseCfsQuota(read(`${base}/cpu.cfs_quota_us`), read(`${base}/cpu.cfs_period_us`));
}

/** `/proc/self/cgroup` lines: `0::/path` (v2), `4:cpu,cpuacct:/path` (v1). */
function cgroupsOf(text: string): { controllers: string; path: string }[] {
  return text
    .split("\n")
    .map((line) => /^\d+:([^:]*):(\/.*)$/.exec(line.trim()))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ controllers: m[1] ?? "", path: m[2] ?? "/" }));
}

/** `/a/b` → `/a/b`, `/a`, `` (the root, as a suffix of `/sys/fs/cgroup`). */
function ancestors(path: string): string[] {
  const parts = path.split("/").filter(Boolean);
  return parts.map((_, i) => `/${parts.slice(0, parts.length - i).join("/")}`).concat("");
}

/** `cpu.max`: `max 100000` (no limit) or `150000 100000` (1.5 CPUs). */
export function parseCpuMax(text: string | undefined): number | undefined {
  const [quota, period] = (text ?? "").trim().split(/\s+/);
  return ratio(quota, period);
}

/** cgroup v1: a quota of -1 is no limit. */
export function parseCfsQuota(quota: string | undefined, period: string | undefined): number | undefined {
  return ratio(quota?.trim(), period?.trim());
}

function ratio(quota: string | undefined, period: string | undefined): number | undefined {
  const q = Number(quota);
  const p = Number(period);
  return quota && period && q > 0 && p > 0 && Number.isFinite(q) && Number.isFinite(p) ? q / p : undefined;
}
