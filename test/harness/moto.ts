/**
 * moto's server (an AWS API emulator) for provider tests: a pinned `moto[server]` installed from PyPI into
 * a virtualenv in the cache (once per version), started on loopback, shared by the whole test run and
 * killed at its end. `reset()` empties every region between tests.
 */
import { join } from "node:path";
import { freePort } from "../../scripts/control-plane/ports.ts";
import { ensurePipTool, tail } from "./pip-tool.ts";
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

/** moto's server in its virtualenv, installed on first use. */
export async function ensureMotoServer(
  log: (line: string) => void = (l) => console.error(`[moto] ${l}`),
): Promise<string> {
  const venv = await ensurePipTool({ dir: `moto-${MOTO_VERSION}`, requirement: `moto[server]==${MOTO_VERSION}`, log });
  return join(venv, "bin", "moto_server");
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
