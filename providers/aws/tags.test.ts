import { describe, expect, test } from "bun:test";
import { ownedTags, taggedForCluster } from "./tags.ts";

describe("cluster tags", () => {
  test.each<{ tags: Record<string, string>; legacy: boolean; want: boolean }>([
    { tags: { "kubernetes.io/cluster/c1": "owned" }, legacy: false, want: true },
    { tags: { "kubernetes.io/cluster/c1": "shared" }, legacy: false, want: true },
    // upstream's hasClusterTag reads the legacy tag whatever KubernetesClusterTag says
    { tags: { KubernetesCluster: "c1" }, legacy: false, want: true },
    { tags: { KubernetesCluster: "c1" }, legacy: true, want: true },
    { tags: { KubernetesCluster: "c2" }, legacy: true, want: false },
    { tags: { "kubernetes.io/cluster/c2": "owned" }, legacy: false, want: false },
  ])("$tags (legacy tag configured: $legacy) → $want", ({ tags, legacy, want }) => {
    expect(taggedForCluster(tags, { clusterID: "c1", legacy })).toBe(want);
  });

  test("the legacy tag is written only when configured", () => {
    const keys = (legacy: boolean): string[] =>
      ownedTags({ clusterID: "c1", legacy }, "ns/web").map((t) => `${t.Key}=${t.Value}`);
    expect(keys(false)).not.toContain("KubernetesCluster=c1");
    expect(keys(true)).toContain("KubernetesCluster=c1");
  });
});
