/**
 * Python tools from PyPI for tests (moto, sushy-tools): one pinned requirement per virtualenv in the
 * cache, installed once. A marker file written after a successful install makes an interrupted install
 * start over (virtualenvs are not relocatable, so each is built in place).
 */
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cacheRoot } from "../../scripts/control-plane/binaries.ts";

export async function run(command: string[], what: string): Promise<void> {
  const proc = Bun.spawn(command, { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  if (code !== 0) throw new Error(`${what} failed (exit ${code}):\n${out.slice(-2000)}\n${err.slice(-2000)}`);
}

export interface PipTool {
  /** The cache folder's name, e.g. `moto-5.2.5`. */
  readonly dir: string;
  /** What pip installs, e.g. `moto[server]==5.2.5`. */
  readonly requirement: string;
  readonly log: (line: string) => void;
}

/** The virtualenv holding `tool`, installed on first use. */
export async function ensurePipTool(tool: PipTool): Promise<string> {
  const venv = join(cacheRoot(), tool.dir);
  const marker = join(venv, ".installed");
  if (existsSync(marker)) return venv;
  rmSync(venv, { recursive: true, force: true });
  tool.log(`installing ${tool.requirement} from PyPI into ${venv} (first run only)…`);
  await run(["python3", "-m", "venv", venv], "python3 -m venv (needs python3 with the venv module)");
  await run(
    [join(venv, "bin", "pip"), "install", "--quiet", "--disable-pip-version-check", tool.requirement],
    `pip install ${tool.requirement}`,
  );
  writeFileSync(marker, `${tool.requirement}\n`);
  return venv;
}

/** Keeps the last lines of a stream, for error messages. */
export function tail(stream: ReadableStream<Uint8Array>, keep = 40): () => string {
  const lines: string[] = [];
  void (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) {
      lines.push(
        ...decoder
          .decode(chunk, { stream: true })
          .split("\n")
          .filter((l) => l !== ""),
      );
      lines.splice(0, Math.max(0, lines.length - keep));
    }
  })();
  return () => lines.join("\n");
}
