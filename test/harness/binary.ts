/** The compiled executable, built once per test run from the current sources. */
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "../../scripts/build.ts";

let built: Promise<string> | undefined;
/** Copies made by this test process, each the whole executable (~120 MiB): removed by `removeCopies`. */
const copies: string[] = [];

/** Called once the run ends (test/setup.ts): bun test fires no `exit` event a hook could use. */
export function removeCopies(): void {
  for (const dir of copies.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export function compiledBinary(): Promise<string> {
  built ??= build();
  return built;
}

/** A copy of the executable alone in a fresh directory, so nothing beside it can help it run. */
export async function lonelyBinary(prefix = "ccm-binary-"): Promise<{ dir: string; binary: string }> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  copies.push(dir);
  const binary = join(dir, "cloud-controller-manager");
  copyFileSync(await compiledBinary(), binary);
  return { dir, binary };
}
