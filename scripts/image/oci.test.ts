import { expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sha256File } from "./debs.ts";
import { imageConfig, writeImageArchive, type ImageSpec } from "./oci.ts";

function tinyRootfs(mtime: number): string {
  const root = mkdtempSync(join(tmpdir(), "ccm-oci-rootfs-"));
  mkdirSync(join(root, "usr/local/bin"), { recursive: true });
  writeFileSync(join(root, "usr/local/bin/tool"), "#!/bin/true\n");
  chmodSync(join(root, "usr/local/bin/tool"), 0o755);
  mkdirSync(join(root, "lib64"));
  symlinkSync("/usr/local/bin/tool", join(root, "lib64/link"));
  for (const p of ["usr/local/bin/tool", "usr/local/bin", "usr", "lib64"]) utimesSync(join(root, p), mtime, mtime);
  return root;
}

const spec = (rootfs: string): ImageSpec => ({
  rootfs,
  epoch: 1_700_000_000,
  ref: "localhost/tiny:v1",
  entrypoint: ["/usr/local/bin/tool"],
  user: "65532:65532",
  env: [],
  labels: { "org.opencontainers.image.version": "v1" },
});

test("the same files give the same archive, whatever their times on disk and wherever it is built", async () => {
  const digests = [];
  for (const mtime of [1_000_000, 2_000_000]) {
    const work = mkdtempSync(join(tmpdir(), "ccm-oci-work-"));
    const archive = await writeImageArchive(spec(tinyRootfs(mtime)), work, join(work, "tiny.oci.tar"));
    digests.push([sha256File(archive.file), archive.manifest.digest, archive.layer.diffId]);
  }
  expect(digests[0]).toEqual(digests[1]);
});

test("config: user, entrypoint, labels, the layer's diff_id and the epoch as created", () => {
  expect(imageConfig(spec("/r"), "sha256:ab")).toEqual({
    created: "2023-11-14T22:13:20.000Z",
    architecture: "amd64",
    os: "linux",
    config: {
      User: "65532:65532",
      Env: [],
      Entrypoint: ["/usr/local/bin/tool"],
      WorkingDir: "/",
      Labels: { "org.opencontainers.image.version": "v1" },
    },
    rootfs: { type: "layers", diff_ids: ["sha256:ab"] },
    history: [
      {
        created: "2023-11-14T22:13:20.000Z",
        created_by: "scripts/release.ts (no Dockerfile: files from Debian packages)",
      },
    ],
  });
});
