/**
 * The entry point, and the only place that reads argv and the environment, installs signal handlers and
 * calls exit. Everything else receives what it needs.
 */
import { availableParallelism, hostname, totalmem } from "node:os";
import { runCli } from "./cli/cli.ts";
import { builtins } from "./builtins.ts";
import { subCommands } from "./sub-commands.ts";
import { runtimeTuningEnvironment } from "./app/runtime-tuning.ts";
import { compiledExecutable, entryPoint } from "./entries.ts";
import { readHostFile, usableCpus } from "./util/cpus.ts";

// The compiled manager sets its runtime's heap and allocator settings, then runs as a new image of the
// same process (see app/runtime-tuning.ts). A failure to re-execute only costs memory and CPU, so it is
// not fatal.
const tuned = runtimeTuningEnvironment({
  env: process.env,
  args: process.argv.slice(2),
  compiled: compiledExecutable(),
  totalMemoryBytes: totalmem(),
});
if (tuned && process.execve) {
  try {
    process.execve(process.execPath, [process.execPath, ...process.argv.slice(2)], tuned);
  } catch (error) {
    process.stderr.write(
      `warning: could not re-execute with the runtime settings for this manager: ${error instanceof Error ? error.message : String(error)}\n`,
    );
  }
}

const stop = new AbortController();
let signals = 0;
for (const name of ["SIGTERM", "SIGINT"] as const) {
  process.on(name, () => {
    signals += 1;
    if (signals > 1) process.exit(1);
    stop.abort(new Error(`received ${name}`));
  });
}

// A bug must end the process (the supervisor restarts it) rather than leave it half-running; Bun does
// not exit on an uncaught error once a signal handler is installed, so say it explicitly.
for (const event of ["uncaughtException", "unhandledRejection"] as const) {
  process.on(event, (error: unknown) => {
    process.stderr.write(
      `fatal: ${event}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  });
}

const io = {
  env: process.env,
  stdout: (text: string) => void process.stdout.write(text),
  stderr: (text: string) => void process.stderr.write(text),
  signal: stop.signal,
  hostname: hostname(),
  workerUrl: entryPoint("src/worker.ts"),
  cpus: usableCpus(availableParallelism(), readHostFile),
};

try {
  process.exitCode = await runCli(process.argv.slice(2), io, builtins(), subCommands());
} catch (error) {
  process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
process.exit(process.exitCode);
