/**
 * CPU and memory of one process from /proc: CPU seconds are utime + stime of every thread
 * (/proc/<pid>/stat, clock ticks of 1/100 s), memory is VmRSS now and VmHWM (the peak) from
 * /proc/<pid>/status. A sampler keeps one sample per interval for per-minute figures. `readThreadCpu`
 * splits the CPU by the kind of thread (/proc/<pid>/task), while the threads are alive.
 */
import { readdirSync, readFileSync } from "node:fs";

const CLOCK_TICKS = 100;

export interface ProcSample {
  /** Milliseconds since the sampler started. */
  readonly t: number;
  readonly cpuSeconds: number;
  readonly rssMiB: number;
  readonly peakRssMiB: number;
}

/** utime + stime of a stat line, in seconds. */
function statSeconds(stat: string): number {
  // Fields after the command name (which may hold spaces) start at ") ": utime and stime are 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

export function readProc(pid: number): Omit<ProcSample, "t"> | undefined {
  try {
    const cpuSeconds = statSeconds(readFileSync(`/proc/${pid}/stat`, "utf8"));
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    return { cpuSeconds, rssMiB: kib(status, "VmRSS") / 1024, peakRssMiB: kib(status, "VmHWM") / 1024 };
  } catch {
    return undefined;
  }
}

/**
 * A Bun manager's CPU by kind of thread: its main thread, its controller threads (Bun names each
 * Worker's thread `Worker`), JavaScriptCore's JIT compilers and its garbage collector's helpers, and the
 * rest (the allocator's scavenger, Bun's pools). A Go process's threads are all `main` or `other`.
 */
export interface ThreadCpu {
  readonly main: number;
  readonly controllers: number;
  readonly jit: number;
  readonly gc: number;
  readonly other: number;
  /**
   * Each controller thread's own share of `controllers`, in the order they started (thread 0 first: the
   * one that also runs the whole-cluster controllers, so it shows when that thread is the busy one).
   * Absent from results measured before it was recorded.
   */
  readonly perController?: readonly number[];
}

export interface TaskCpu {
  readonly tid: number;
  /** /proc/<pid>/task/<tid>/comm: the thread's name, cut to 15 bytes. */
  readonly name: string;
  readonly seconds: number;
}

export type ThreadKind = Exclude<keyof ThreadCpu, "perController">;

export function kindOfThread(pid: number, task: Pick<TaskCpu, "tid" | "name">): ThreadKind {
  if (task.tid === pid) return "main";
  if (task.name === "Worker") return "controllers";
  if (task.name.startsWith("JIT")) return "jit";
  // JavaScriptCore keeps the end of a long name: "Heap Collector Thread" reads "ollector Thread".
  if (task.name === "HeapHelper" || task.name.endsWith("ollector Thread")) return "gc";
  return "other";
}

export function threadCpuOf(pid: number, tasks: readonly TaskCpu[]): ThreadCpu {
  const sums: Record<ThreadKind, number> = { main: 0, controllers: 0, jit: 0, gc: 0, other: 0 };
  const workers: TaskCpu[] = [];
  for (const task of tasks) {
    const kind = kindOfThread(pid, task);
    sums[kind] += task.seconds;
    if (kind === "controllers") workers.push(task);
  }
  // Thread ids grow in the order the threads were created, and the manager starts thread 0 first.
  return { ...sums, perController: workers.sort((a, b) => a.tid - b.tid).map((task) => task.seconds) };
}

/** The live threads' CPU by kind; a thread that has ended is in the process total but not here. */
export function readThreadCpu(pid: number): ThreadCpu | undefined {
  try {
    const tasks = readdirSync(`/proc/${pid}/task`).flatMap((tid): TaskCpu[] => {
      try {
        const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
        const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
        return [{ tid: Number(tid), name, seconds: statSeconds(stat) }];
      } catch {
        return []; // ended between the listing and the read
      }
    });
    return threadCpuOf(pid, tasks);
  } catch {
    return undefined;
  }
}

function kib(status: string, field: string): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status);
  return match ? Number(match[1]) : 0;
}

export class ProcSampler {
  readonly samples: ProcSample[] = [];
  readonly #pid: number;
  readonly #started = Date.now();
  readonly #timer: ReturnType<typeof setInterval>;

  constructor(pid: number, intervalMs = 1000) {
    this.#pid = pid;
    this.sample();
    this.#timer = setInterval(() => this.sample(), intervalMs);
  }

  /** Takes a sample now (also the last one before the process is stopped). */
  sample(): ProcSample | undefined {
    const now = readProc(this.#pid);
    if (!now) return undefined;
    const sample = { t: Date.now() - this.#started, ...now };
    this.samples.push(sample);
    return sample;
  }

  stop(): ProcSample | undefined {
    const last = this.sample();
    clearInterval(this.#timer);
    return last ?? this.samples.at(-1);
  }
}
