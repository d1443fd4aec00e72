/**
 * Upstream's `--version` (component-base verflag): `--version` / `--version=true` prints the version
 * and quits, `--version=raw` prints every build field and quits, `--version=false` does nothing, and
 * `--version=vX.Y.Z…` runs with that as the reported version; it must keep this build's
 * major.minor.patch (only the pre-release or build suffix may differ), as upstream requires.
 */
import { parseBool } from "../config/values.ts";
import { platform, type BuildInfo } from "../version.ts";

export type VersionRequest =
  | { readonly kind: "none" }
  | { readonly kind: "print" }
  | { readonly kind: "raw" }
  | { readonly kind: "report"; readonly version: string }
  | { readonly kind: "error"; readonly message: string };

const CORE = /^v(\d+)\.(\d+)\.(\d+)/;

/** The last `--version` on the command line decides, as with any flag. */
export function versionRequest(argv: readonly string[], build: BuildInfo): VersionRequest {
  const last = argv.filter((a) => a === "--version" || a.startsWith("--version=")).at(-1);
  if (last === undefined || last === "--version") return last === undefined ? { kind: "none" } : { kind: "print" };
  const value = last.slice("--version=".length);
  if (value === "raw") return { kind: "raw" };
  const bool = parseBool(value);
  if (bool !== undefined) return bool ? { kind: "print" } : { kind: "none" };
  const wanted = CORE.exec(value);
  const own = CORE.exec(build.version);
  if (!wanted)
    return {
      kind: "error",
      message: `invalid argument ${JSON.stringify(value)} for "--version" flag: not true, false, raw or a version vX.Y.Z`,
    };
  if (own && wanted.slice(1, 4).join(".") !== own.slice(1, 4).join(".")) {
    return {
      kind: "error",
      message: `invalid argument ${JSON.stringify(value)} for "--version" flag: version ${JSON.stringify(value)} must match major/minor/patch of default version ${JSON.stringify(build.version)}`,
    };
  }
  return { kind: "report", version: value };
}

/** `--version=raw`: every field, in upstream's `version.Info` layout. */
export function rawVersion(build: BuildInfo): string {
  const [, major = "", minor = ""] = CORE.exec(build.version) ?? [];
  return `version.Info{Major:"${major}", Minor:"${minor}", GitVersion:"${build.version}", GitCommit:"${build.commit}", GitTreeState:"${build.treeState}", BuildDate:"${build.date}", GoVersion:"", Compiler:"bun ${Bun.version}", Platform:"${platform()}"}`;
}
