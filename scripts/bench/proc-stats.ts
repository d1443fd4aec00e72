/**
 * CPU and memory of one process from /proc: CPU seconds are utime + stime of every thread
 * (/proc/<pid>/stat, clock ticks of 1/100 s), memory is VmRSS now and VmHWM (the peak) from
 * /proc/<pid>/status. A sampler keeps one sample per interval for per-minute figures.
 */
import { readFileSync } from "node:fs";

const CLOCK_TICKS = 100;

export interface ProcSample {
  /** Milliseconds since the sampler started. */
  readonly t: number;
  readonly cpuSeconds: number;
  readonly rssMiB: number;
  readonly peakRssMiB: number;
}

export function readProc(pid: number): Omit<ProcSample, "t"> | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces) start at ") ": utime and stime are 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const cpuSeconds = (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    return { cpuSeconds, rssMiB: kib(status, "VmRSS") / 1024, peakRssMiB: kib(status, "VmHWM") / 1024 };
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
