/**
 * `kubernetes_build_info` (constant 1, labelled with the build) and `kubernetes_feature_enabled` (one
 * series per feature gate), as every upstream component exports them. This build has no Go toolchain:
 * `go_version` is empty and `compiler` names Bun.
 */
import type { FeatureGate } from "../config/feature-gates.ts";
import { platform, type BuildInfo } from "../version.ts";
import type { Metrics } from "./metrics.ts";

export function recordBuild(
  metrics: Metrics,
  build: BuildInfo,
  gates: readonly FeatureGate[],
  enabled: Readonly<Record<string, boolean>>,
): void {
  const { version, commit } = build;
  const [major = "", minor = ""] = /^v?(\d+)\.(\d+)/.exec(version)?.slice(1) ?? [];
  metrics.buildInfo.set(
    {
      major,
      minor,
      git_version: version,
      git_commit: commit,
      git_tree_state: build.treeState,
      build_date: build.date,
      go_version: "",
      compiler: `bun ${Bun.version}`,
      platform: platform(),
    },
    1,
  );
  for (const gate of gates)
    metrics.featureEnabled.set({ name: gate.name, stage: gate.stage }, enabled[gate.name] === true ? 1 : 0);
}
