/**
 * Command dispatch with citty: the default command runs the manager; other commands are listed in
 * `subCommands`. Help and version are answered before anything else. Returns the exit status.
 */
import { defineCommand, renderUsage, runCommand, type CommandDef, type SubCommandsDef } from "citty";
import { stripVTControlCharacters } from "node:util";
import { parseArgv } from "../config/argv.ts";
import { parseErrors } from "../config/load.ts";
import { FLAGS } from "../config/flags.ts";
import { renderManagerHelp } from "./usage.ts";
import { runManagerCommand, type Builtins, type Io } from "./run.ts";
import { buildInfo } from "../version.ts";
import { rawVersion, versionRequest } from "./version-flag.ts";
import { helpRequest } from "./help-flag.ts";

/** Other commands, each a citty command that receives `Io` and `Builtins` through `data`. */
export type SubCommands = SubCommandsDef;

export interface CommandData {
  readonly io: Io;
  readonly builtins: Builtins;
  exitCode: number;
}

function managerArgs(): CommandDef["args"] {
  return Object.fromEntries(
    FLAGS.map((f) => [f.name, { type: f.type === "bool" ? "boolean" : "string", description: f.usage }] as const),
  );
}

export async function runCli(
  argv: readonly string[],
  io: Io,
  builtins: Builtins,
  subCommands: SubCommands = {},
): Promise<number> {
  const help = helpRequest(argv);
  if (help.kind === "error") {
    io.stderr(`error: ${help.message}\n`);
    return 2;
  }
  const wantsHelp = help.kind === "help";
  const args = help.argv;
  const sub = args[0] && !args[0].startsWith("-") ? args[0] : undefined; // "" is no command (nor argument)
  if (sub === undefined || sub === "run")
    return runDefault(sub === "run" ? args.slice(1) : args, wantsHelp, io, builtins);
  const command = subCommands[sub] as CommandDef | undefined;
  if (!command) {
    io.stderr(
      `error: unknown command ${JSON.stringify(sub)} (commands: run, ${Object.keys(subCommands).join(", ")})\n`,
    );
    return 2;
  }
  if (wantsHelp) {
    const parent = defineCommand({ meta: { name: "cloud-controller-manager" }, args: managerArgs() });
    // Plain text, as the manager's own --help and upstream's: no colour codes in a pipe or a file.
    io.stdout(`${stripVTControlCharacters(await renderUsage(command, parent))}\n`);
    return 0;
  }
  const data: CommandData = { io, builtins, exitCode: 0 };
  await runCommand(command, { rawArgs: args.slice(1), data });
  return data.exitCode;
}

async function runDefault(argv: readonly string[], wantsHelp: boolean, io: Io, builtins: Builtins): Promise<number> {
  if (wantsHelp) {
    io.stdout(renderManagerHelp());
    return 0;
  }
  const info = buildInfo();
  const version = versionRequest(argv, info);
  const rest = argv.filter((a) => a !== "--version" && !a.startsWith("--version="));
  const quits = version.kind === "print" || version.kind === "raw";
  const errors = [
    ...(quits ? parseErrors(parseArgv(rest, FLAGS)) : []),
    ...(version.kind === "error" ? [version.message] : []),
  ];
  if (errors.length > 0) {
    for (const line of errors) io.stderr(`error: ${line}\n`);
    return 2;
  }
  if (quits) {
    io.stdout(
      version.kind === "raw"
        ? `${rawVersion(info)}\n`
        : `cloud-controller-manager ${info.version} (commit ${info.commit})\n`,
    );
    return 0;
  }
  return runManagerCommand(rest, io, builtins, version.kind === "report" ? version.version : undefined);
}
