/** The compiled executable, built once per test run from the current sources. */
import { build } from "../../scripts/build.ts";

let built: Promise<string> | undefined;

export function compiledBinary(): Promise<string> {
  built ??= build();
  return built;
}
