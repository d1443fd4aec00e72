/**
 * Build identity. `scripts/build.ts` injects both constants with `--define`; under `bun run` they are
 * absent and the values below stand in.
 */
declare const CCM_BUILD_VERSION: string | undefined;
declare const CCM_BUILD_COMMIT: string | undefined;

import pkg from "../package.json" with { type: "json" };

export interface BuildInfo {
  readonly version: string;
  readonly commit: string;
}

export function buildInfo(): BuildInfo {
  return {
    version: typeof CCM_BUILD_VERSION === "string" ? CCM_BUILD_VERSION : `v${pkg.version}`,
    commit: typeof CCM_BUILD_COMMIT === "string" ? CCM_BUILD_COMMIT : "unknown",
  };
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
