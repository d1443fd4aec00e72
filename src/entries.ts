/**
 * Where the executable's other entry points are. Each is a module graph of its own: a controller thread
 * (`src/worker.ts`), and the aws provider, whose AWS SDK is parsed only by a manager that chose it (the SDK
 * is most of the code: parsed in every thread, it cost each some 6 MiB). In the compiled executable they
 * lie under `/$bunfs/root/` at their paths from the repository root (`scripts/build.ts` compiles them with
 * that root); in a source run, at those paths from here.
 */
const COMPILED_ROOT = "file:///$bunfs/root/";

/** Whether this is the compiled executable (code in it sees the URL of its entry point there). */
export function compiledExecutable(): boolean {
  return import.meta.url.startsWith(COMPILED_ROOT);
}

/** The URL of entry point `path` (from the repository root) in this executable or source tree. */
export function entryPoint(path: string): string {
  if (compiledExecutable()) return `${COMPILED_ROOT}${path}`;
  return new URL(`../${path}`, import.meta.url).href;
}
