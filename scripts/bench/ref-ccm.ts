/**
 * The Go reference cloud-controller-manager (`go/ref-ccm`): upstream k8s.io/cloud-provider with its
 * in-memory fake cloud, built from the Go module proxy once and cached like kube-apiserver, keyed by the
 * Kubernetes release and a hash of the module's sources (a change to main.go rebuilds it).
 */
import { createHash } from "node:crypto";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { KUBERNETES_VERSION, cacheRoot, goBuild } from "../control-plane/binaries.ts";

const MODULE_DIR = join(import.meta.dir, "go", "ref-ccm");

export function refCcmSourceHash(): string {
  const hash = createHash("sha256");
  for (const file of readdirSync(MODULE_DIR)
    .filter((f) => /\.(go|mod|sum)$/.test(f))
    .sort()) {
    hash.update(file).update(readFileSync(join(MODULE_DIR, file)));
  }
  return hash.digest("hex").slice(0, 12);
}

export async function ensureRefCcm(log: (line: string) => void): Promise<string> {
  const dir = join(cacheRoot(), `ref-ccm-${KUBERNETES_VERSION}-${refCcmSourceHash()}`);
  return goBuild(log, dir, { module: "ref-ccm", moduleDir: MODULE_DIR, pkg: ".", output: "ref-ccm", ldflags: "-s -w" });
}
