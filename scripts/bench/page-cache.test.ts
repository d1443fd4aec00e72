import { describe, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { settleExecutable } from "./page-cache.ts";

describe("settleExecutable", () => {
  test("syncs the file, drops its pages, then runs it once; reports a refused step", async () => {
    const seen: string[][] = [];
    const ok = await settleExecutable("/opt/ccm", async (argv) => (seen.push(argv), 0));
    expect(ok).toBe(true);
    expect(seen).toEqual([
      ["sync", "/opt/ccm"],
      ["dd", "if=/opt/ccm", "iflag=nocache", "count=0"],
      ["/opt/ccm", "--version"],
    ]);
    expect(await settleExecutable("/opt/ccm", async (argv) => (argv[0] === "dd" ? 1 : 0))).toBe(false);
  });

  test("an executable written just now: this machine's sync and dd take it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "settle-"));
    const path = join(dir, "manager");
    writeFileSync(path, "#!/bin/sh\nexit 0\n");
    chmodSync(path, 0o755);
    try {
      expect(await settleExecutable(path)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
