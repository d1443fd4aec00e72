/**
 * moto's server (an AWS API emulator) for provider tests: a pinned `moto[server]` installed from PyPI into
 * a virtualenv in the cache (once per version), started on loopback, shared by the whole test run and
 * killed at its end. `reset()` empties every region between tests.
 */
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cacheRoot } from "../../scripts/control-plane/binaries.ts";
import { freePort } from "../../scripts/control-plane/ports.ts";
import { track } from "./processes.ts";

export const MOTO_VERSION = "5.2.5";

export interface Moto {
  /** `http://127.0.0.1:<port>`: the endpoint for every AWS service. */
  readonly endpoint: string;
  /** Forgets every resource in every region (moto's `POST /moto-api/reset`). */
  reset(): Promise<void>;
}

let shared: Promise<Moto> | undefined;

/** The run's moto server, started on first use. */
export function moto(): Promise<Moto> {
  shared ??= startMoto();
  return shared;
}

async function run(command: string[], what: string): Promise<void> {
  const proc = Bun.spawn(command, { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  if (code !== 0) throw new Error(`${what} failed (exit ${code}):\n${out.slice(-2000)}\n${err.slice(-2000)}`);
}

/**
 * The virtualenv holding moto. A marker file written after a successful install makes an interrupted
 * install start over (virtualenvs are not relocatable, so it is built in place).
 */
export async function ensureMotoServer(
  log: (line: string) => void = (l) => console.error(`[moto] ${l}`),
): Promise<string> {
  const venv = join(cacheRoot(), `moto-${MOTO_VERSION}`);
  const server = join(venv, "bin", "moto_server");
  const marker = join(venv, ".installed");
  if (existsSync(marker)) return server;
  rmSync(venv, { recursive: true, force: true });
  log(`installing moto[server]==${MOTO_VERSION} from PyPI into ${venv} (first run only)…`);
  await run(["python3", "-m", "venv", venv], "python3 -m venv (needs python3 with the venv module)");
  await run(
    [join(venv, "bin", "pip"), "install", "--quiet", "--disable-pip-version-check", `moto[server]==${MOTO_VERSION}`],
    "pip install moto[server]",
  );
  writeFileSync(marker, `moto[server]==${MOTO_VERSION}\n`);
  return server;
}

/** Keeps the last lines of a stream, for error messages. */
function tail(stream: ReadableStream<Uint8Array>, keep = 40): () => string {
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

async function startMoto(): Promise<Moto> {
  const server = await ensureMotoServer();
  const port = await freePort();
  const endpoint = `http://127.0.0.1:${port}`;
  const proc = track(Bun.spawn([server, "-H", "127.0.0.1", "-p", String(port)], { stdout: "ignore", stderr: "pipe" }));
  const log = tail(proc.stderr);
  const explain = (what: string): Error =>
    new Error(`${what} (moto_server ${proc.exitCode === null ? "running" : `exited ${proc.exitCode}`}):\n${log()}`);
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (proc.exitCode !== null) throw explain(`moto_server did not start on ${endpoint}`);
    const up = await fetch(`${endpoint}/moto-api/reset`, { method: "POST" }).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline) throw explain(`moto_server did not answer on ${endpoint} within 60 s`);
    await Bun.sleep(200);
  }
  return {
    endpoint,
    async reset() {
      const response = await fetch(`${endpoint}/moto-api/reset`, { method: "POST" }).catch((error: unknown) => {
        throw explain(`moto reset failed: ${(error as Error).message}`);
      });
      if (!response.ok) throw explain(`moto reset failed: HTTP ${response.status}`);
    },
  };
}
