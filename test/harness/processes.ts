/** Every process a test starts is tracked here, so none outlives the test run. */
import type { Subprocess } from "bun";

const running = new Set<Subprocess>();

export function track<T extends Subprocess>(proc: T): T {
  running.add(proc);
  void proc.exited.then(() => running.delete(proc));
  return proc;
}

export function killAll(signal: NodeJS.Signals = "SIGKILL"): void {
  for (const proc of running) proc.kill(signal);
}

process.on("exit", () => killAll());
