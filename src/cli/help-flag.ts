/**
 * Cobra's `-h, --help`: a bool flag like any other, so `--help=false` runs the command, `--help=true` and
 * `-h=1` ask for help, and the last occurrence decides. The flag is taken out of the arguments the
 * command goes on with.
 */
import { parseBool } from "../config/values.ts";

export type HelpRequest =
  | { readonly kind: "help" | "none"; readonly argv: readonly string[] }
  | { readonly kind: "error"; readonly message: string };

const HELP = /^(?:--help|-h)(?:=(.*))?$/s;

export function helpRequest(argv: readonly string[]): HelpRequest {
  const end = argv.indexOf("--");
  const flags = end >= 0 ? argv.slice(0, end) : argv;
  let wanted = false;
  for (const arg of flags) {
    const match = HELP.exec(arg);
    if (!match) continue;
    const value = match[1] === undefined ? true : parseBool(match[1]);
    if (value === undefined)
      return { kind: "error", message: `invalid value ${JSON.stringify(match[1])} for flag --help: not a boolean` };
    wanted = value;
  }
  const rest = [...flags.filter((arg) => !HELP.test(arg)), ...(end >= 0 ? argv.slice(end) : [])];
  return { kind: wanted ? "help" : "none", argv: rest };
}
