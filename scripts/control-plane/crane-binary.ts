/**
 * crane (go-containerregistry) for the image tests: an independent, well-kept reader of the release's
 * OCI archive. Built once from the Go module proxy with the pinned wrapper module `go/crane` and cached
 * outside the repository like kube-apiserver, keyed by version; `$CRANE` names an existing binary instead.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { cacheRoot, goBuild } from "./binaries.ts";

/** Must match the `require` in go/crane/go.mod. */
export const CRANE_VERSION = "v0.22.1";

export async function ensureCrane(log: (line: string) => void, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  if (env.CRANE && existsSync(env.CRANE)) return env.CRANE;
  return goBuild(log, join(cacheRoot(env), `crane-${CRANE_VERSION}`), {
    module: "crane",
    pkg: "github.com/google/go-containerregistry/cmd/crane",
    output: "crane",
    ldflags: "-s -w",
  });
}
