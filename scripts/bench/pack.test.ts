import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { PARTS, checkParts } from "./pack.ts";

const roots: string[] = [];

function stageWith(files: readonly string[]): string {
  const stage = mkdtempSync(join(tmpdir(), "ccm-bench-pack-"));
  roots.push(stage);
  for (const f of files) {
    mkdirSync(dirname(join(stage, f)), { recursive: true });
    writeFileSync(join(stage, f), "x");
  }
  return stage;
}

afterAll(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

describe("bundle parts", () => {
  const all = PARTS.flatMap((p) => p.files);

  test("no file is in two parts (each part unpacks on its own into one directory)", () => {
    expect(new Set(all).size).toBe(all.length);
  });

  test("a stage holding exactly the parts' files passes", () => {
    expect(() => checkParts(stageWith(all))).not.toThrow();
  });

  test("a staged file in no part is named", () => {
    expect(() => checkParts(stageWith([...all, "bin/extra"]))).toThrow("bundle files in no part: bin/extra");
  });
});
