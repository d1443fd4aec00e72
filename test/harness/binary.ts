/** The compiled executable, built once per test run from the current sources. */
import { copyFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "../../scripts/build.ts";

let built: Promise<string> | undefined;

export function compiledBinary(): Promise<string> {
  built ??= build();
  return built;
}

/** A copy of the executable alone in a fresh directory, so nothing beside it can help it run. */
export async function lonelyBinary(prefix = "ccm-binary-"): Promise<{ dir: string; binary: string }> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const binary = join(dir, "cloud-controller-manager");
  copyFileSync(await compiledBinary(), binary);
  return { dir, binary };
}
