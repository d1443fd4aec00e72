/**
 * The entry point, and the only place that reads argv and the environment, installs signal handlers and
 * calls exit. Everything else receives what it needs.
 */
import { hostname } from "node:os";
import { runCli } from "./cli/cli.ts";
import { builtins, subCommands } from "./builtins.ts";

const stop = new AbortController();
let signals = 0;
for (const name of ["SIGTERM", "SIGINT"] as const) {
  process.on(name, () => {
    signals += 1;
    if (signals > 1) process.exit(1);
    stop.abort(new Error(`received ${name}`));
  });
}

const io = {
  env: process.env,
  stdout: (text: string) => void process.stdout.write(text),
  stderr: (text: string) => void process.stderr.write(text),
  signal: stop.signal,
  hostname: hostname(),
  workerUrl: new URL("./worker.ts", import.meta.url).href,
};

try {
  process.exitCode = await runCli(process.argv.slice(2), io, builtins(), subCommands());
} catch (error) {
  process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
process.exit(process.exitCode);
