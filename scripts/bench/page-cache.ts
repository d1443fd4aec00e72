/**
 * A freshly written executable sits in the page cache as its writes left it: mapped at exec, it counts
 * more resident memory than the same bytes read in by exec's own page faults (byte-identical files
 * measured on 2 cores: `--version` 43 against 39 MiB, the quick plan's 300-Node cold start 100 against
 * 87 MiB). A binary built or copied just before a run would carry that into every RSS figure, so each
 * is synced, dropped from the page cache (GNU dd's `iflag=nocache count=0`: POSIX_FADV_DONTNEED for
 * the whole file) and run once with `--version`, and every measured run maps it as an installed one
 * (`npm run bench` and the cost scripts beside this file).
 */
type Run = (argv: string[]) => Promise<number>;

const spawnQuiet: Run = (argv) => Bun.spawn(argv, { stdout: "ignore", stderr: "ignore" }).exited;

/** Resolves whether the file's pages were dropped (false where `sync` or GNU `dd` is missing or refused). */
export async function settleExecutable(path: string, run: Run = spawnQuiet): Promise<boolean> {
  const dropped =
    (await run(["sync", path])) === 0 && (await run(["dd", `if=${path}`, "iflag=nocache", "count=0"])) === 0;
  await run([path, "--version"]);
  return dropped;
}
