/** Runs the CLI in this process with every builtin, capturing what it writes (tests only). */
import { runCli } from "./cli.ts";
import { builtins } from "../builtins.ts";
import { subCommands } from "../sub-commands.ts";

export interface CliResult {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

export async function runCommand(argv: readonly string[], env: Record<string, string> = {}): Promise<CliResult> {
  let out = "";
  let err = "";
  const io = {
    env,
    stdout: (t: string) => void (out += t),
    stderr: (t: string) => void (err += t),
    signal: new AbortController().signal,
    hostname: "test",
    workerUrl: "",
    cpus: 4,
  };
  const code = await runCli([...argv], io, builtins(), subCommands());
  return { code, out, err };
}
