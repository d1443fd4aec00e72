/**
 * `--pack DIR`: the benchmark as compressed parts for a machine with nothing installed and no network: the
 * compiled manager (which also runs the benchmark, as Bun, with BUN_BE_BUN=1), the Go reference, kwok,
 * kube-apiserver and etcd, the benchmark bundled into one JavaScript file (its dependencies inlined, so no
 * node_modules travels), and `run.sh`, which passes them all to it. Each part is a tar archive of its own,
 * under 60 MiB (what one transfer to a device machine may carry), and every part unpacks into the same
 * `ccm-bench/` directory, one at a time and in any order:
 *
 *   for part in ccm-bench-*.tar.xz; do tar xJf "$part"; done
 *   ccm-bench/run.sh --plan big --only steady --resume
 *
 * Results land in ccm-bench/bench/big/ (or bench/, dist/bench-quick/ by plan) as they are measured.
 */
import { chmodSync, copyFileSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
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
# Just unpacked, the manager would count more resident pages when mapped (scripts/bench/page-cache.ts), and
# the benchmark runs as it, so its pages are dropped before it starts.
ccm="$here/bin/cloud-controller-manager"
sync "$ccm" 2>/dev/null && dd if="$ccm" iflag=nocache count=0 2>/dev/null || true
exec env BUN_BE_BUN=1 "$ccm" "$here/bench.js" \\
  --ours-binary "$ccm" --go-binary "$here/bin/ref-ccm" \\
  --kwok-binary "$here/bin/kwok" "$@"
`;

async function run(argv: string[], cwd?: string): Promise<void> {
  // BUN_BE_BUN lets a compiled manager standing in for Bun build the bundle; XZ_OPT compresses on every core.
  const env = { ...process.env, BUN_BE_BUN: "1", XZ_OPT: process.env.XZ_OPT ?? "-6 -T0" };
  const proc = Bun.spawn(argv, { cwd, stdout: "inherit", stderr: "inherit", env });
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

/** What one transfer may carry is 64 MiB; each part stays under this. */
export const PART_LIMIT_BYTES = 60 * 2 ** 20;

/** The bundle's parts, by what compresses to well under the limit each (the manager alone is ~40 MiB). */
export const PARTS: readonly { readonly name: string; readonly files: readonly string[] }[] = [
  { name: "manager", files: ["run.sh", "bench.js", "go/ref-ccm/go.mod", "bin/cloud-controller-manager"] },
  { name: "control-plane", files: ["bin/kube-apiserver", "bin/etcd"] },
  { name: "go", files: ["bin/ref-ccm", "bin/kwok"] },
];

/** Copies every file of the bundle into `stage`. */
async function stageFiles(stage: string, bin: Binaries, log: (line: string) => void): Promise<void> {
  if (!bin.kwok) throw new Error("the bundle needs kwok");
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
}

/** Every staged file is in one part: a file added to the bundle but to no part would be left behind. */
export function checkParts(stage: string): void {
  const staged = readdirSync(stage, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(stage.length + 1));
  const inParts = new Set(PARTS.flatMap((p) => p.files));
  const left = staged.filter((f) => !inParts.has(f));
  if (left.length) throw new Error(`bundle files in no part: ${left.join(", ")}`);
}

/** Writes DIR/ccm-bench-<part>.tar.xz (gzip where xz is missing), each under PART_LIMIT_BYTES; their paths. */
export async function pack(dir: string, bin: Binaries, log: (line: string) => void): Promise<string[]> {
  const stage = join(dir, NAME);
  rmSync(stage, { recursive: true, force: true });
  await stageFiles(stage, bin, log);
  checkParts(stage);
  const xz = await hasXz();
  const archives: string[] = [];
  try {
    for (const part of PARTS) {
      const archive = join(dir, `${NAME}-${part.name}.tar.${xz ? "xz" : "gz"}`);
      log(`compressing ${basename(archive)} (${xz ? "xz" : "gzip"}; a minute or two)…`);
      await run(["tar", "-C", dir, xz ? "-cJf" : "-czf", archive, ...part.files.map((f) => join(NAME, f))], dir);
      const size = statSync(archive).size;
      log(`${archive}: ${(size / 2 ** 20).toFixed(1)} MiB`);
      if (size > PART_LIMIT_BYTES) throw new Error(`${archive} is over ${PART_LIMIT_BYTES / 2 ** 20} MiB`);
      archives.push(archive);
    }
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
  return archives;
}
