/**
 * An OCI image layout, written as one tar archive, from a staged root filesystem: one gzip layer, the
 * config, the manifest, `index.json` and `oci-layout`, plus Docker's `manifest.json` beside them (as
 * `docker save` writes since Docker 25), so `ctr images import`, `docker load`, skopeo's `oci-archive:` and
 * crane all read it. Reproducible: every tar entry in name order, owned by 0:0, dated `epoch` (the
 * commit's time, SOURCE_DATE_EPOCH), and gzip without a name or a time.
 */
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

export const MEDIA_TYPES = {
  index: "application/vnd.oci.image.index.v1+json",
  manifest: "application/vnd.oci.image.manifest.v1+json",
  config: "application/vnd.oci.image.config.v1+json",
  layer: "application/vnd.oci.image.layer.v1.tar+gzip",
} as const;

export interface ImageSpec {
  /** The staged root filesystem. */
  readonly rootfs: string;
  /** Seconds since 1970: every file's mtime and the image's `created`. */
  readonly epoch: number;
  /** The full reference importers tag the image with, e.g. `localhost/cloud-controller-manager:v0.1.0`. */
  readonly ref: string;
  readonly entrypoint: readonly string[];
  readonly user: string;
  readonly env: readonly string[];
  /** Config labels, repeated as manifest annotations. */
  readonly labels: Readonly<Record<string, string>>;
}

export interface Descriptor {
  readonly mediaType: string;
  readonly digest: string;
  readonly size: number;
}

export interface ImageArchive {
  readonly file: string;
  readonly manifest: Descriptor;
  readonly config: Descriptor;
  readonly layer: Descriptor & { readonly diffId: string };
}

const sha256 = (data: Uint8Array): string => new Bun.CryptoHasher("sha256").update(data).digest("hex");

/** `tar` with every entry in name order, owned by 0:0 and dated `epoch`. */
export async function reproducibleTar(file: string, dir: string, entries: readonly string[], epoch: number) {
  const args = [
    "tar",
    "--create",
    "--format=gnu",
    "--sort=name",
    `--mtime=@${epoch}`,
    "--owner=0",
    "--group=0",
    "--numeric-owner",
    "--file",
    file,
    "--directory",
    dir,
    ...[...entries].sort(),
  ];
  const proc = Bun.spawn(args, { stdout: "inherit", stderr: "inherit" });
  if ((await proc.exited) !== 0) throw new Error(`${args.join(" ")} failed`);
}

/** Writes a blob under `layout/blobs/sha256/` and returns its descriptor. */
function writeBlob(layout: string, mediaType: string, data: Uint8Array): Descriptor {
  const hex = sha256(data);
  const path = join(layout, "blobs", "sha256", hex);
  mkdirSync(join(layout, "blobs", "sha256"), { recursive: true, mode: 0o755 });
  writeFileSync(path, data, { mode: 0o644 });
  return { mediaType, digest: `sha256:${hex}`, size: data.byteLength };
}

const json = (value: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(value));

async function writeLayer(spec: ImageSpec, layout: string, work: string): Promise<ImageArchive["layer"]> {
  const tar = join(work, "layer.tar");
  const entries = (await Array.fromAsync(new Bun.Glob("*").scan({ cwd: spec.rootfs, onlyFiles: false }))).sort();
  await reproducibleTar(tar, spec.rootfs, entries, spec.epoch);
  const raw = readFileSync(tar);
  const layer = writeBlob(layout, MEDIA_TYPES.layer, gzipSync(raw, { level: 9 }));
  return { ...layer, diffId: `sha256:${sha256(raw)}` };
}

export function imageConfig(spec: ImageSpec, diffId: string): unknown {
  const created = new Date(spec.epoch * 1000).toISOString();
  return {
    created,
    architecture: "amd64",
    os: "linux",
    config: {
      User: spec.user,
      Env: spec.env,
      Entrypoint: spec.entrypoint,
      WorkingDir: "/",
      Labels: spec.labels,
    },
    rootfs: { type: "layers", diff_ids: [diffId] },
    history: [{ created, created_by: "scripts/release.ts (no Dockerfile: files from Debian packages)" }],
  };
}

/** Builds the layout in `work/layout` and archives it as `file`. */
export async function writeImageArchive(spec: ImageSpec, work: string, file: string): Promise<ImageArchive> {
  const layout = join(work, "layout");
  mkdirSync(layout, { recursive: true });
  const layer = await writeLayer(spec, layout, work);
  const config = writeBlob(layout, MEDIA_TYPES.config, json(imageConfig(spec, layer.diffId)));
  const { diffId: _, ...layerDescriptor } = layer;
  const manifest = writeBlob(
    layout,
    MEDIA_TYPES.manifest,
    json({
      schemaVersion: 2,
      mediaType: MEDIA_TYPES.manifest,
      config,
      layers: [layerDescriptor],
      annotations: { ...spec.labels, "org.opencontainers.image.created": imageCreated(spec) },
    }),
  );
  writeLayoutFiles(spec, layout, { manifest, config, layer });
  for (const f of ["oci-layout", "index.json", "manifest.json"]) chmodSync(join(layout, f), 0o644);
  const tmp = `${file}.tmp`;
  await reproducibleTar(tmp, layout, ["blobs", "index.json", "manifest.json", "oci-layout"], spec.epoch);
  renameSync(tmp, file);
  return { file, manifest, config, layer };
}

const imageCreated = (spec: ImageSpec): string => new Date(spec.epoch * 1000).toISOString();

const blobPath = (d: Descriptor): string => `blobs/sha256/${d.digest.slice("sha256:".length)}`;

/**
 * `index.json` names the image twice: containerd's `io.containerd.image.name` and the OCI
 * `org.opencontainers.image.ref.name`, both the full reference (containerd reads either; a bare tag would
 * need `ctr import --base-name`). Docker's `manifest.json` carries it as `RepoTags`.
 */
function writeLayoutFiles(spec: ImageSpec, layout: string, d: Omit<ImageArchive, "file">): void {
  writeFileSync(join(layout, "oci-layout"), JSON.stringify({ imageLayoutVersion: "1.0.0" }));
  const annotations = { "io.containerd.image.name": spec.ref, "org.opencontainers.image.ref.name": spec.ref };
  const index = {
    schemaVersion: 2,
    mediaType: MEDIA_TYPES.index,
    manifests: [{ ...d.manifest, platform: { architecture: "amd64", os: "linux" }, annotations }],
  };
  writeFileSync(join(layout, "index.json"), JSON.stringify(index));
  const docker = [{ Config: blobPath(d.config), RepoTags: [spec.ref], Layers: [blobPath(d.layer)] }];
  writeFileSync(join(layout, "manifest.json"), JSON.stringify(docker));
}
