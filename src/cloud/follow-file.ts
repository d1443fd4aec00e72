/** Following a provider's cloud-config file while the manager runs (IO: stat and read, on a timer). */
import { readFileSync, statSync } from "node:fs";

/**
 * Calls `onText` with the file's content on the first check and whenever its size, modification time or
 * inode changes after that (polling, so files replaced by rename, as editors and config-management tools
 * do, are seen too). The caller compares content, so a repeated call costs nothing. Returns the stop function.
 */
export function followCloudConfig(
  path: string,
  intervalMs: number,
  onText: (text: string) => void,
  onError: (error: Error) => void,
): () => void {
  let seen = "";
  let failing = false;
  const check = (): void => {
    try {
      const stat = statSync(path);
      const signature = `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
      failing = false;
      if (signature === seen) return;
      seen = signature;
      onText(readFileSync(path, "utf8"));
    } catch (error) {
      seen = "";
      if (!failing) onError(error as Error);
      failing = true;
    }
  };
  const timer = setInterval(check, intervalMs);
  timer.unref();
  check();
  return () => clearInterval(timer);
}
