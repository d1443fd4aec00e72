/**
 * `npm run release`: everything an air-gapped site needs, under dist/release/:
 *
 *   cloud-controller-manager-linux-x64            the executable (and -linux-arm64 when it builds)
 *   cloud-controller-manager-<version>-linux-<arch>.tar.gz
 *       cloud-controller-manager                  the same executable
 *       manifests/<provider>/…                    every kind `manifests` prints, for every provider
 *       chart/cloud-controller-manager/…          the Helm chart (charts/ in the repository)
 *       INSTALL.md                                the README's install section, with this release's facts
 *       SHA256SUMS                                of the files above
 *   cloud-controller-manager-<version>-linux-amd64.oci.tar   the container image (scripts/image/)
 *   cloud-controller-manager-<version>.cdx.json              the SBOM (CycloneDX)
 *   SHA256SUMS                                    of the executables, tarballs, image and SBOM
 *
 * Cross-compiling for arm64 makes Bun fetch the arm64 runtime; where that fails (no network) arm64 is
 * skipped with the reason, in the output and in INSTALL.md. The image is made from Debian packages and
 * skipped, the same way, on a host that is not Debian amd64.
 */
import { createRegistry } from "../src/cloud/registry.ts";
import {
  chmodSync,
  copyFileSync,
  cpSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import pkg from "../package.json" with { type: "json" };
import { build, commitEpoch, gitCommit } from "./build.ts";
import { sha256File } from "./image/debs.ts";
import { releaseImageAndSbom, type ReleaseFiles } from "./image/release-files.ts";
import { providerFactories } from "../src/builtins.ts";
import { splitArgs } from "../src/cli/command-args.ts";
import { packageOptions, PACKAGE_FLAG_LIST } from "../src/cli/package-options.ts";
import { FILE_NAMES, KINDS, render } from "../src/manifests/catalog.ts";
import { DEFAULTS } from "../src/manifests/options.ts";

const root = join(import.meta.dir, "..");
const NAME = "cloud-controller-manager";
const ARCHES = [
  { arch: "x64", target: "bun-linux-x64", required: true },
  { arch: "arm64", target: "bun-linux-arm64", required: false },
] as const;
/** A cross-compile that cannot fetch its runtime must not hang the release. */
const CROSS_TIMEOUT_MS = 180_000;

export interface Release {
  readonly dir: string;
  readonly version: string;
  readonly built: readonly string[];
  readonly skipped: readonly { arch: string; reason: string }[];
  /** The image's reference once imported, when it was built; else why not. */
  readonly imageRef?: string;
  readonly imageSkipped?: string;
}

/**
 * The flags every shipped manifest is generated with (placeholder-free; regenerate for others). Routes
 * off: they need the cluster's --cluster-cidr, which a release cannot know.
 */
export function defaultFlags(provider: string): string[] {
  return [`--cloud-provider=${provider}`, `--cloud-config=${DEFAULTS.cloudConfig}`, "--configure-cloud-routes=false"];
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((p) => statSync(join(dir, p)).isFile())
    .sort();
}

/** `sha256sum` format: "<hex>  <path>" per line, paths relative to `dir`. */
function writeSums(dir: string, paths: readonly string[]): void {
  writeFileSync(join(dir, "SHA256SUMS"), paths.map((p) => `${sha256File(join(dir, p))}  ${p}\n`).join(""));
}

function writeManifests(dir: string): void {
  const registry = createRegistry(providerFactories());
  for (const provider of registry.names) {
    for (const kind of KINDS) {
      const result = packageOptions(splitArgs([kind, ...defaultFlags(provider)], PACKAGE_FLAG_LIST), registry);
      if (!result.ok) throw new Error(`manifests ${kind} for ${provider}: ${result.errors.join("; ")}`);
      const path = join(dir, "manifests", provider, FILE_NAMES[kind]);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, render(kind, result.options));
    }
  }
}

/** The README's "## Install" section: one text for the repository and the tarball, tested once. */
export function installSection(readme: string): string {
  const start = readme.indexOf("\n## Install\n");
  if (start < 0) throw new Error("README.md has no '## Install' section");
  const end = readme.indexOf("\n## ", start + 1);
  return readme.slice(start + 1, end < 0 ? undefined : end).trim();
}

/** Where the source lives: package.json's `repository`, else the git remote `origin`; undefined if neither. */
async function sourceUrl(): Promise<string | undefined> {
  const repository = (pkg as { repository?: string | { url?: string } }).repository;
  const declared = typeof repository === "string" ? repository : repository?.url;
  if (declared) return declared;
  const proc = Bun.spawn(["git", "remote", "get-url", "origin"], { cwd: root, stdout: "pipe", stderr: "ignore" });
  const url = (await new Response(proc.stdout).text()).trim();
  return (await proc.exited) === 0 && url !== "" ? url : undefined;
}

function imageLines(files: ReleaseFiles): string[] {
  const sbom = `- \`${basename(files.sbom)}\` (beside this tarball): the SBOM, CycloneDX JSON: the npm packages in the executable and the Debian packages in the image;`;
  if (!files.image) return [sbom, `- no container image: ${files.imageSkipped ?? "not built"};`];
  const { archive, ref } = files.image;
  return [
    sbom,
    `- \`${basename(archive.file)}\` (beside this tarball): the container image \`${ref}\` (manifest \`${archive.manifest.digest}\`),`,
    `  the executable at \`/usr/local/bin/${NAME}\` with its libraries from Debian; \`ctr -n k8s.io images import\` it on every node;`,
  ];
}

interface InstallFacts {
  readonly version: string;
  readonly arch: string;
  readonly commit: string;
  readonly skipped: Release["skipped"];
  readonly files: ReleaseFiles;
}

function installMd(o: InstallFacts): string {
  const providers = providerFactories()
    .map((f) => f.name)
    .sort();
  const skipped = o.skipped.map((s) => `- linux-${s.arch} was not built: ${s.reason.split("\n")[0] ?? ""}\n`).join("");
  return [
    `# ${NAME} ${o.version} for linux-${o.arch}`,
    "",
    `Built from commit ${o.commit}. This directory holds everything an install needs, with no network access:`,
    "",
    `- \`${NAME}\`: the executable (glibc-linked, nothing else needed beside it);`,
    `- \`manifests/<provider>/\` for ${providers.map((p) => `\`${p}\``).join(", ")}: ${KINDS.map((k) => `\`${FILE_NAMES[k]}\``).join(", ")}, generated with`,
    `  \`${defaultFlags("<provider>").join(" ")}\`; print others with \`./${NAME} manifests <kind> <flags>\`;`,
    `- \`chart/${NAME}/\`: the Helm chart (\`helm install ccm ./chart/${NAME} -n kube-system --set provider=…\`);`,
    "- `SHA256SUMS`: check with `sha256sum -c SHA256SUMS`;",
    ...imageLines(o.files),
    "- the release's own `SHA256SUMS` (beside this tarball) covers the tarballs, executables, image and SBOM.",
    "",
    ...(skipped ? ["Architectures:", "", skipped] : []),
    installSection(readFileSync(join(root, "README.md"), "utf8")),
    "",
  ].join("\n");
}

async function tarball(out: string, stage: string): Promise<string> {
  const file = join(out, `${basename(stage)}.tar.gz`);
  const args = [
    "tar",
    "--sort=name",
    "--owner=0",
    "--group=0",
    "--numeric-owner",
    "-czf",
    file,
    "-C",
    dirname(stage),
    basename(stage),
  ];
  const proc = Bun.spawn(args, { stdout: "inherit", stderr: "inherit" });
  if ((await proc.exited) !== 0) throw new Error(`${args.join(" ")} failed`);
  return file;
}

async function buildArches(
  out: string,
): Promise<{ built: { arch: string; binary: string }[]; skipped: { arch: string; reason: string }[] }> {
  const built: { arch: string; binary: string }[] = [];
  const skipped: { arch: string; reason: string }[] = [];
  for (const { arch, target, required } of ARCHES) {
    const outfile = join(out, `${NAME}-linux-${arch}`);
    try {
      await build({
        target,
        outfile,
        timeoutMs: required ? undefined : CROSS_TIMEOUT_MS,
        output: required ? "inherit" : "pipe",
      });
      // The executable embeds its source map; the separate copy is not part of the release.
      rmSync(`${outfile}.map`, { force: true });
      built.push({ arch, binary: outfile });
    } catch (error) {
      if (required) throw error;
      rmSync(outfile, { force: true });
      skipped.push({
        arch,
        reason: `cross-compiling needs Bun's ${target} runtime, which could not be fetched: ${(error as Error).message}`,
      });
    }
  }
  return { built, skipped };
}

export async function release(out = join(root, "dist", "release")): Promise<Release> {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const version = `v${pkg.version}`;
  const commit = await gitCommit();
  const { built, skipped } = await buildArches(out);
  const files = await releaseImageAndSbom({
    out,
    projectDir: root,
    binary: built.find((b) => b.arch === "x64")!.binary,
    version,
    commit,
    epoch: (await commitEpoch()) ?? 0,
    license: pkg.license,
    source: await sourceUrl(),
  });
  const shipped: string[] = [];
  for (const { arch, binary } of built) {
    const stage = join(out, ".stage", `${NAME}-${version}-linux-${arch}`);
    mkdirSync(stage, { recursive: true });
    copyFileSync(binary, join(stage, NAME));
    chmodSync(join(stage, NAME), 0o755);
    writeManifests(stage);
    cpSync(join(root, "charts", NAME), join(stage, "chart", NAME), { recursive: true });
    writeFileSync(join(stage, "INSTALL.md"), installMd({ version, arch, commit, skipped, files }));
    writeSums(stage, filesUnder(stage));
    shipped.push(binary, await tarball(out, stage));
  }
  rmSync(join(out, ".stage"), { recursive: true, force: true });
  shipped.push(...(files.image ? [files.image.archive.file] : []), files.sbom);
  writeSums(
    out,
    shipped.map((p) => relative(out, p)),
  );
  return {
    dir: out,
    version,
    built: built.map((b) => b.arch),
    skipped,
    ...(files.image ? { imageRef: files.image.ref } : { imageSkipped: files.imageSkipped }),
  };
}

if (import.meta.main) {
  const result = await release();
  for (const s of result.skipped) console.error(`skipped linux-${s.arch}: ${s.reason}`);
  if (result.imageSkipped) console.error(`skipped the container image: ${result.imageSkipped}`);
  console.log(
    `release ${result.version} for ${result.built.map((a) => `linux-${a}`).join(", ")} in ${relative(process.cwd(), result.dir) || "."}:`,
  );
  for (const file of readdirSync(result.dir).sort()) console.log(`  ${file}`);
}
