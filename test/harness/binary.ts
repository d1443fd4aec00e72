/** The compiled executable, built once per test run from the current sources. */
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "../../scripts/build.ts";

let built: Promise<string> | undefined;
/** Copies made by this test process: removed when it exits (each is the whole executable, ~120 MiB). */
const copies: string[] = [];

export function compiledBinary(): Promise<string> {
  built ??= build();
  return built;
}

/** A copy of the executable alone in a fresh directory, so nothing beside it can help it run. */
export async function lonelyBinary(prefix = "ccm-binary-"): Promise<{ dir: string; binary: string }> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (copies.length === 0)
    process.once("exit", () => copies.forEach((d) => rmSync(d, { recursive: true, force: true })));
  copies.push(dir);
  const binary = join(dir, "cloud-controller-manager");
  copyFileSync(await compiledBinary(), binary);
  return { dir, binary };
}
