/**
 * The release's container image: the linux-x64 executable on Debian's shared libraries, as distroless
 * images are made (files taken from .debs, no package manager run), written as an OCI archive.
 */
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { extractDeb, fetchDebs, type DebPackage } from "./debs.ts";
import { writeImageArchive, type ImageArchive } from "./oci.ts";
import { BINARY_PATH, CA_BUNDLE, NONROOT, stageRootfs, type ImageFile } from "./rootfs.ts";

/** Those whose files the binary needs; a package none of whose files is used is left out. */
export const DEBIAN_PACKAGES: readonly string[] = ["libc6", "libgcc-s1", "ca-certificates"];

export const IMAGE_NAME = "localhost/cloud-controller-manager";

export interface ImageOptions {
  readonly binary: string;
  readonly version: string;
  readonly commit: string;
  /** SOURCE_DATE_EPOCH: the commit's time, in seconds. */
  readonly epoch: number;
  readonly license: string;
  /** Where the source lives (`org.opencontainers.image.source`); left out when unknown. */
  readonly source?: string;
  /** The .oci.tar to write. */
  readonly file: string;
  /** Where downloaded .debs are kept between builds. */
  readonly debCache: string;
}

export interface ImagePackage {
  readonly deb: DebPackage;
  /** The package's files in the image (regular files, with their hashes). */
  readonly files: readonly ImageFile[];
}

export interface Image {
  readonly ref: string;
  readonly archive: ImageArchive;
  readonly packages: readonly ImagePackage[];
}

export function imageLabels(o: ImageOptions): Record<string, string> {
  return {
    "org.opencontainers.image.title": "cloud-controller-manager",
    "org.opencontainers.image.version": o.version,
    "org.opencontainers.image.revision": o.commit,
    ...(o.source ? { "org.opencontainers.image.source": o.source } : {}),
    "org.opencontainers.image.licenses": o.license,
  };
}

export async function buildImage(o: ImageOptions): Promise<Image> {
  const work = `${o.file}.work`;
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  try {
    const debs = await fetchDebs(DEBIAN_PACKAGES, o.debCache);
    const unpacked = await Promise.all(
      debs.map(async (d) => ({ name: d.name, dir: await extractDeb(d, join(work, "debs", d.name)) })),
    );
    const rootfs = join(work, "rootfs");
    mkdirSync(rootfs);
    const files = await stageRootfs(rootfs, o.binary, unpacked);
    const ref = `${IMAGE_NAME}:${o.version}`;
    const archive = await writeImageArchive(
      {
        rootfs,
        epoch: o.epoch,
        ref,
        entrypoint: [BINARY_PATH],
        user: `${NONROOT}:${NONROOT}`,
        env: ["PATH=/usr/local/bin:/usr/bin:/bin", `SSL_CERT_FILE=${CA_BUNDLE}`],
        labels: imageLabels(o),
      },
      work,
      o.file,
    );
    const packages = debs
      .map((deb) => ({ deb, files: files.filter((f) => f.pkg === deb.name) }))
      .filter((p) => p.files.length > 0);
    return { ref, archive, packages };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
