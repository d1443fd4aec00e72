/**
 * Compiles the manager into one executable, `dist/cloud-controller-manager`, holding every provider and
 * every worker-thread entry point. Version and git commit are baked in.
 *
 *   bun scripts/build.ts [--target bun-linux-arm64] [--outfile path]
 */
import { mkdirSync, rmSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import pkg from "../package.json" with { type: "json" };
import { rfc3339 } from "../src/util/clock.ts";

const root = join(import.meta.dir, "..");

export async function gitCommit(): Promise<string> {
  const proc = Bun.spawn(["git", "rev-parse", "--short=12", "HEAD"], { cwd: root, stdout: "pipe", stderr: "ignore" });
  const out = (await new Response(proc.stdout).text()).trim();
  if ((await proc.exited) !== 0 || out === "") return "unknown";
  const dirty = Bun.spawn(["git", "status", "--porcelain", "--untracked-files=no"], {
    cwd: root,
    stdout: "pipe",
    stderr: "ignore",
  });
  const changes = (await new Response(dirty.stdout).text()).trim();
  await dirty.exited;
  return changes === "" ? out : `${out}-dirty`;
}

/** The commit's time in seconds (SOURCE_DATE_EPOCH), or undefined outside a git checkout. */
export async function commitEpoch(): Promise<number | undefined> {
  const proc = Bun.spawn(["git", "log", "-1", "--format=%ct"], { cwd: root, stdout: "pipe", stderr: "ignore" });
  const seconds = Number((await new Response(proc.stdout).text()).trim());
  if ((await proc.exited) !== 0 || !Number.isFinite(seconds) || seconds <= 0) return undefined;
  return seconds;
}

/**
 * The commit's time in upstream's `buildDate` spelling (`2006-01-02T15:04:05Z`): a rebuild of the same
 * commit reports the same date, so builds stay reproducible.
 */
export async function commitDate(): Promise<string> {
  const seconds = await commitEpoch();
  return seconds === undefined ? "" : rfc3339(seconds * 1000);
}

/**
 * Extra entry points compiled into the binary, each a module graph of its own: the controller thread, and
 * the aws provider with its SDK (loaded only when chosen). The binary holds them at their paths from the
 * repository root (`--root`), where `src/entries.ts` finds them.
 */
export const EXTRA_ENTRIES: readonly string[] = ["src/worker.ts", "providers/aws/provider.ts"];

export interface BuildOptions {
  readonly outfile?: string;
  readonly target?: string;
  /** Give up (kill the compiler) after this long: cross-compiling fetches the target's runtime. */
  readonly timeoutMs?: number;
  /** Where the compiler's output goes (default: this process's stdout/stderr). */
  readonly output?: "inherit" | "pipe";
}

export async function build(options: BuildOptions = {}): Promise<string> {
  const outfile = options.outfile ?? join(root, "dist", "cloud-controller-manager");
  mkdirSync(dirname(outfile), { recursive: true });
  const commit = await gitCommit();
  const args = [
    process.execPath,
    "build",
    "--compile",
    "--minify-syntax",
    "--minify-whitespace",
    "--sourcemap",
    // Each module's bytecode compiled ahead, not at every start (and in every thread): exec to ready with
    // 2,000 Nodes 0.6–0.75 → 0.4–0.47 s and a quarter less CPU, with 4 threads 0.77–0.94 → 0.57–0.66 s,
    // for 9 MB more executable (scripts/bench/start-time.ts). ESM bytecode needs ESM output.
    "--bytecode",
    "--format=esm",
    ...(options.target ? [`--target=${options.target}`] : []),
    `--define`,
    `CCM_BUILD_VERSION=${JSON.stringify(`v${pkg.version}`)}`,
    `--define`,
    `CCM_BUILD_COMMIT=${JSON.stringify(commit)}`,
    `--define`,
    `CCM_BUILD_DATE=${JSON.stringify(await commitDate())}`,
    `--root=${root}`,
    join(root, "src", "main.ts"),
    ...EXTRA_ENTRIES.map((e) => join(root, e)),
    "--outfile",
    outfile,
  ];
  await compile(args, options);
  // The source maps are embedded in the executable (stack traces name source files); the copies the
  // compiler also writes beside it are not needed.
  for (const map of [
    `${outfile}.map`,
    ...EXTRA_ENTRIES.map((e) => join(dirname(outfile), `${basename(e, ".ts")}.js.map`)),
  ])
    rmSync(map, { force: true });
  return outfile;
}

/** Runs the compiler; its output is inherited, or collected into the error when it fails. */
async function compile(args: string[], options: BuildOptions): Promise<void> {
  const output = options.output ?? "inherit";
  const proc = Bun.spawn(args, {
    cwd: root,
    stdout: output,
    stderr: output,
    timeout: options.timeoutMs,
    killSignal: "SIGKILL",
  });
  const text =
    output === "pipe"
      ? `${await new Response(proc.stdout as ReadableStream).text()}${await new Response(proc.stderr as ReadableStream).text()}`
      : "";
  const status = await proc.exited;
  if (status === 0) return;
  const why = proc.signalCode
    ? `killed (${proc.signalCode}) after ${options.timeoutMs ?? 0} ms`
    : `exit status ${status}`;
  throw new Error(
    `bun build --compile${options.target ? ` --target=${options.target}` : ""} failed: ${why}${text ? `\n${text.trim()}` : ""}`,
  );
}

if (import.meta.main) {
  const argv = process.argv.slice(2);
  const value = (flag: string): string | undefined => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const out = await build({ outfile: value("--outfile"), target: value("--target") });
  console.log(`built ${out}`);
}
