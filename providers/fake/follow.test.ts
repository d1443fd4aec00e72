/** Without an endpoint, the fake cloud follows edits of its cloud-config; a broken edit keeps the last good one. */
import { expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Node } from "../../src/kube/objects.ts";
import { testProviderContext } from "../../test/harness/provider-context.ts";
import { eventually } from "../../test/harness/wait.ts";
import { parseFakeConfig } from "./index.ts";
import { createFakeProvider } from "./provider.ts";

const node: Node = { metadata: { name: "edge-1" }, spec: {} };

test("instances follow the file; a broken edit is logged and ignored", async () => {
  const path = join(mkdtempSync(join(tmpdir(), "fake-follow-")), "cloud.yaml");
  writeFileSync(path, "instances: [{ name: edge-1, instanceType: small }]\n");
  const parsed = parseFakeConfig("instances: [{ name: edge-1, instanceType: small }]\n");
  if (!parsed.ok) throw new Error(parsed.errors.join("; "));
  const lines: string[] = [];
  const provider = createFakeProvider({ config: parsed.config, path }, testProviderContext([], lines));
  try {
    expect((await provider.instances?.instanceMetadata(node))?.instanceType).toBe("small");
    // A different size too: two writes within one tick of the file system's clock share a modification time.
    writeFileSync(path, "instances: [{ name: edge-1, instanceType: xlarge }]\n");
    await eventually(
      "the edit to apply",
      async () => (await provider.instances?.instanceMetadata(node))?.instanceType === "xlarge",
      10_000,
    );
    writeFileSync(path, "instances: [{ name: edge-1, state: melted }]\n");
    await eventually(
      "the broken edit to be reported",
      () => lines.some((l) => l.includes("ignoring edit") && l.includes("instances[0].state")),
      10_000,
    );
    expect((await provider.instances?.instanceMetadata(node))?.instanceType).toBe("xlarge");
  } finally {
    await provider.close?.();
  }
}, 30_000);
