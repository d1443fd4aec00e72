/**
 * Runs the manager as a real process (from source, or the compiled binary), collects its log lines and
 * lets a test wait for a line, signal it and read its exit status.
 */
import { appendFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { track } from "./processes.ts";

const root = join(import.meta.dir, "..", "..");

/** Every manager's log is kept here for the run (one file per process), so a failure can be read later. */
export const CCM_LOG_DIR = join(tmpdir(), `ccm-test-logs-${process.pid}`);

export interface CcmProcess {
  readonly proc: Subprocess;
  readonly lines: string[];
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** The exit status, once every line the process wrote has been read. */
  readonly exited: Promise<number>;
  /** Sends `signal` and resolves the exit status. */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<number>;
  readonly output: () => string;
}

export interface CcmOptions {
  readonly args: readonly string[];
  /** Path of a compiled binary; from source (`bun src/main.ts`) when absent. */
  readonly binary?: string;
  readonly cwd?: string;
  readonly env?: Record<string, string>;
  /** Echo log lines to the test output as they come. */
  readonly echo?: boolean;
  /** Start from `env` alone instead of adding it to this process's environment (as systemd does). */
  readonly cleanEnv?: boolean;
}

/** Managers still running, so a file whose test failed midway can stop them (`killCcms`). */
const live = new Set<CcmProcess>();

/**
 * The flags every test manager starts with: the provider and its cloud-config, the kubeconfig (the
 * restricted identity's, as a rule), no leader election and no serving. A test appends its own.
 */
export function managerFlags(kubeconfig: string, provider: string, configFile: string): string[] {
  return [
    `--cloud-provider=${provider}`,
    `--cloud-config=${configFile}`,
    `--kubeconfig=${kubeconfig}`,
    "--leader-elect=false",
    "--secure-port=0",
  ];
}

/**
 * Kills every manager still running. For `afterEach` in files whose tests start their own managers: one
 * left running by a failed test would act on the next files' objects (the control plane is shared).
 */
export async function killCcms(): Promise<void> {
  for (const ccm of [...live]) await ccm.stop("SIGKILL").catch(() => undefined);
}

export function startCcm(options: CcmOptions): CcmProcess {
  const command = options.binary
    ? [options.binary, ...options.args]
    : [process.execPath, join(root, "src", "main.ts"), ...options.args];
  const proc = track(
    Bun.spawn(command, {
      cwd: options.cwd ?? root,
      env: options.cleanEnv ? { ...options.env } : { ...process.env, ...options.env },
      stdout: "pipe",
      stderr: "pipe",
    }),
  );
  const lines: string[] = [];
  const waiters = new Set<() => void>();
  mkdirSync(CCM_LOG_DIR, { recursive: true });
  const logFile = join(CCM_LOG_DIR, `ccm-${proc.pid}.log`);
  appendFileSync(logFile, `# ${command.join(" ")}\n`);
  const pump = async (stream: ReadableStream<Uint8Array>): Promise<void> => {
    const decoder = new TextDecoder();
    let buffered = "";
    for await (const chunk of stream) {
      buffered += decoder.decode(chunk, { stream: true });
      const parts = buffered.split("\n");
      buffered = parts.pop() ?? "";
      if (parts.length > 0) appendFileSync(logFile, `${parts.join("\n")}\n`);
      for (const line of parts) {
        lines.push(line);
        if (options.echo) console.error(`[ccm ${proc.pid}] ${line}`);
      }
      for (const wake of waiters) wake();
    }
  };
  // The exit status can arrive before the last lines are read from the pipes: `stop` waits for both.
  const drained = Promise.all([pump(proc.stdout), pump(proc.stderr)]).catch(() => undefined);
  const exited = proc.exited.then(async (code) => {
    await Promise.race([drained, Bun.sleep(5000)]);
    return code;
  });
  const ccm: CcmProcess = {
    proc,
    lines,
    exited,
    output: () => lines.join("\n"),
    async waitForLine(pattern, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const hit = lines.find((l) => pattern.test(l));
        if (hit !== undefined) return hit;
        if (proc.exitCode !== null)
          throw new Error(`CCM exited (${proc.exitCode}) before logging ${pattern}:\n${lines.slice(-40).join("\n")}`);
        if (Date.now() > deadline)
          throw new Error(`CCM did not log ${pattern} within ${timeoutMs} ms:\n${lines.slice(-40).join("\n")}`);
        await new Promise<void>((resolve) => {
          const wake = (): void => {
            waiters.delete(wake);
            resolve();
          };
          waiters.add(wake);
          setTimeout(wake, 200);
        });
      }
    },
    async stop(signal = "SIGTERM", timeoutMs = 30_000) {
      if (proc.exitCode === null) proc.kill(signal);
      const code = await Promise.race([exited, Bun.sleep(timeoutMs).then(() => undefined)]);
      if (code === undefined) {
        proc.kill("SIGKILL");
        throw new Error(`CCM did not exit within ${timeoutMs} ms of ${signal}:\n${lines.slice(-40).join("\n")}`);
      }
      return code;
    },
  };
  live.add(ccm);
  void exited.then(() => live.delete(ccm));
  return ccm;
}
