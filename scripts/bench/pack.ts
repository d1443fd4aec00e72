/**
 * `--pack DIR`: the benchmark as one compressed bundle for a machine with nothing installed and no
 * network: the compiled manager (which also runs the benchmark, as Bun, with BUN_BE_BUN=1), the Go
 * reference, kwok, kube-apiserver and etcd, the benchmark bundled into one JavaScript file (its
 * dependencies inlined, so no node_modules), and `run.sh`, which passes them all to it:
 *
 *   tar xJf ccm-bench.tar.xz && ccm-bench/run.sh --plan big --only steady --resume
 *
 * Results land in ccm-bench/bench/big/ (or bench/, dist/bench-quick/ by plan) as they are measured.
 */
import { chmodSync, copyFileSync, mkdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { ensureKubeBinaries } from "../control-plane/binaries.ts";
import type { Binaries } from "./managers.ts";

const NAME = "ccm-bench";

const RUN_SH = `#!/bin/sh
# Runs the cloud-controller-manager benchmark from this bundle, offline, with nothing installed.
# Options as for \`npm run bench\` (run.sh --help); results under bench/ in this directory.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
export KUBEBUILDER_ASSETS="$here/bin" CCM_BENCH_ROOT="$here" CCM_CACHE_DIR="\${CCM_CACHE_DIR:-$here/work}"
exec env BUN_BE_BUN=1 "$here/bin/cloud-controller-manager" "$here/bench.js" \\
  --ours-binary "$here/bin/cloud-controller-manager" --go-binary "$here/bin/ref-ccm" \\
  --kwok-binary "$here/bin/kwok" "$@"
`;

async function run(argv: string[], cwd?: string): Promise<void> {
  const proc = Bun.spawn(argv, { cwd, stdout: "inherit", stderr: "inherit", env: { ...process.env, BUN_BE_BUN: "1" } });
  if ((await proc.exited) !== 0) throw new Error(`${argv.slice(0, 3).join(" ")} … failed`);
}

/** The benchmark and everything it imports, in one file for Bun. */
async function bundleBench(outfile: string): Promise<void> {
  const entry = join(import.meta.dir, "..", "bench.ts");
  await run([process.execPath, "build", "--target=bun", "--minify-syntax", entry, "--outfile", outfile]);
}

async function hasXz(): Promise<boolean> {
  try {
    return (await Bun.spawn(["xz", "--version"], { stdout: "ignore", stderr: "ignore" }).exited) === 0;
  } catch {
    return false;
  }
}

/** Writes DIR/ccm-bench.tar.xz (gzip where xz is missing) and returns its path. */
export async function pack(dir: string, bin: Binaries, log: (line: string) => void): Promise<string> {
  if (!bin.kwok) throw new Error("the bundle needs kwok");
  const stage = join(dir, NAME);
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(join(stage, "bin"), { recursive: true });
  mkdirSync(join(stage, "go", "ref-ccm"), { recursive: true });
  const kube = await ensureKubeBinaries(log);
  const binaries: Record<string, string> = {
    "cloud-controller-manager": bin.ours,
    "ref-ccm": bin.go,
    kwok: bin.kwok,
    "kube-apiserver": kube.kubeApiserver,
    etcd: kube.etcd,
  };
  for (const [name, path] of Object.entries(binaries)) copyFileSync(path, join(stage, "bin", name));
  // Read for the results' header: the Go reference's k8s.io/cloud-provider version.
  copyFileSync(join(import.meta.dir, "go", "ref-ccm", "go.mod"), join(stage, "go", "ref-ccm", "go.mod"));
  await bundleBench(join(stage, "bench.js"));
  writeFileSync(join(stage, "run.sh"), RUN_SH);
  chmodSync(join(stage, "run.sh"), 0o755);
  const xz = await hasXz();
  const archive = join(dir, `${NAME}.tar.${xz ? "xz" : "gz"}`);
  log(`compressing ${stage} (${xz ? "xz" : "gzip"}; a minute or two)…`);
  await run(["tar", "-C", dir, xz ? "-cJf" : "-czf", basename(archive), NAME], dir);
  rmSync(stage, { recursive: true, force: true });
  log(`${archive}: ${(statSync(archive).size / 2 ** 20).toFixed(0)} MiB`);
  return archive;
}
