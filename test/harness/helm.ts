/**
 * The helm the chart tests run: built from the Go module proxy and cached (scripts/control-plane/binaries.ts),
 * with its config, cache and data homes in a scratch directory so nothing of the user's helm is read or
 * written.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureHelm } from "../../scripts/control-plane/binaries.ts";

export interface HelmResult {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

let home: string | undefined;

/**
 * How long the first build may take: its module downloads alone took over a minute on 2 cores, longer
 * than any one test may run, so the chart tests build it before their first test, under this limit.
 */
export const HELM_BUILD_TIMEOUT_MS = 15 * 60_000;

export const helmBinary = (): Promise<string> => ensureHelm((line) => console.error(`[helm] ${line}`));

export async function helm(args: readonly string[]): Promise<HelmResult> {
  const binary = await helmBinary();
  home ??= mkdtempSync(join(tmpdir(), "ccm-helm-"));
  const env = {
    ...process.env,
    HELM_CONFIG_HOME: join(home, "config"),
    HELM_CACHE_HOME: join(home, "cache"),
    HELM_DATA_HOME: join(home, "data"),
  };
  const proc = Bun.spawn([binary, ...args], { env, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  return { status: await proc.exited, stdout, stderr };
}
