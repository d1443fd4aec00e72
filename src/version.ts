/**
 * Build identity. `scripts/build.ts` injects both constants with `--define`; under `bun run` they are
 * absent and the values below stand in.
 */
declare const CCM_BUILD_VERSION: string | undefined;
declare const CCM_BUILD_COMMIT: string | undefined;
declare const CCM_BUILD_DATE: string | undefined;

import pkg from "../package.json" with { type: "json" };

export interface BuildInfo {
  readonly version: string;
  /** The short commit, `-dirty` when built from a changed working tree; `unknown` outside a build. */
  readonly commit: string;
  /** `clean` or `dirty` (upstream's gitTreeState); empty outside a build. */
  readonly treeState: string;
  /** The commit's time, `2006-01-02T15:04:05Z`; empty outside a build. */
  readonly date: string;
}

export function buildInfo(): BuildInfo {
  const commit = typeof CCM_BUILD_COMMIT === "string" ? CCM_BUILD_COMMIT : "unknown";
  return {
    version: typeof CCM_BUILD_VERSION === "string" ? CCM_BUILD_VERSION : `v${pkg.version}`,
    commit,
    treeState: treeState(commit),
    date: typeof CCM_BUILD_DATE === "string" ? CCM_BUILD_DATE : "",
  };
}

function treeState(commit: string): string {
  if (commit === "unknown") return "";
  return commit.endsWith("-dirty") ? "dirty" : "clean";
}

/** The user agent upstream client-go would send, with our version: `cloud-controller-manager/<version>`. */
export function userAgent(component = "cloud-controller-manager"): string {
  return `${component}/${buildInfo().version}`;
}

const ARCH: Readonly<Record<string, string>> = { x64: "amd64", arm64: "arm64", arm: "arm", ia32: "386" };

/** `os/arch` in Go's spelling (`linux/amd64`), as upstream reports its platform. */
export function platform(): string {
  return `${process.platform}/${ARCH[process.arch] ?? process.arch}`;
}
