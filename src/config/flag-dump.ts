/**
 * The `FLAG: --name="value"` lines upstream's command logs at V(1) (component-base's `PrintFlags`): every
 * flag, sorted by name, with the value in force (the default where none was given).
 */
import { parseArgv } from "./argv.ts";
import { FLAGS } from "./flags.ts";

export function flagLines(argv: readonly string[]): string[] {
  const { values } = parseArgv(argv, FLAGS);
  return [...FLAGS]
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .map((spec) => `FLAG: --${spec.name}=${JSON.stringify(values.get(spec.name) ?? spec.default)}`);
}
