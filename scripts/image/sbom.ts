/**
 * The release's SBOM (CycloneDX 1.6 JSON): the npm packages compiled into the executable, as
 * `@cyclonedx/cyclonedx-npm` reports them (runtime dependencies only, flattened, reproducible), and the
 * Debian packages inside the image merged in beside them, each with its purl, the .deb's hash and the
 * hash of every file of it the image holds.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ImagePackage } from "./build-image.ts";

export const SPEC_VERSION = "1.6";

export interface Hash {
  readonly alg: string;
  readonly content: string;
}

export interface Component {
  readonly type: string;
  readonly name: string;
  readonly group?: string;
  readonly version?: string;
  readonly "bom-ref"?: string;
  readonly purl?: string;
  readonly hashes?: readonly Hash[];
  readonly components?: readonly Component[];
  readonly [key: string]: unknown;
}

export interface Bom {
  readonly bomFormat: "CycloneDX";
  readonly specVersion: string;
  readonly metadata: { readonly component?: Component; readonly [key: string]: unknown };
  readonly components: readonly Component[];
  readonly dependencies?: readonly { readonly ref: string; readonly dependsOn?: readonly string[] }[];
  readonly [key: string]: unknown;
}

const CLI = join(
  import.meta.dir,
  "..",
  "..",
  "node_modules",
  "@cyclonedx",
  "cyclonedx-npm",
  "bin",
  "cyclonedx-npm-cli.js",
);

/** cyclonedx-npm on the project's package.json (run by Node, as it is an npm tool and runs `npm ls`). */
export async function npmBom(projectDir: string): Promise<Bom> {
  const dir = mkdtempSync(join(tmpdir(), "ccm-sbom-"));
  const file = join(dir, "npm.cdx.json");
  try {
    const args = ["node", CLI, "--omit", "dev", "--flatten-components", "--output-reproducible", "--validate"];
    args.push("--spec-version", SPEC_VERSION, "--output-format", "JSON", "--output-file", file, "package.json");
    const proc = Bun.spawn(args, { cwd: projectDir, stdout: "pipe", stderr: "pipe" });
    const err = await new Response(proc.stderr).text();
    if ((await proc.exited) !== 0) throw new Error(`cyclonedx-npm failed:\n${err.trim()}`);
    return JSON.parse(readFileSync(file, "utf8")) as Bom;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const debPurl = (name: string, version: string, arch: string): string =>
  `pkg:deb/debian/${name}@${encodeURIComponent(version)}?arch=${arch}`;

export function debComponent(p: ImagePackage): Component {
  const { name, version, arch, sha256 } = p.deb;
  const purl = debPurl(name, version, arch);
  return {
    type: "library",
    "bom-ref": purl,
    supplier: { name: "Debian", url: ["https://www.debian.org"] },
    name,
    version,
    hashes: [{ alg: "SHA-256", content: sha256 }],
    purl,
    components: p.files.map((f) => ({
      type: "file",
      "bom-ref": `${purl}#${f.path}`,
      name: f.path,
      hashes: [{ alg: "SHA-256", content: f.sha256 }],
    })),
  };
}

/** `bom` with the image's Debian packages as components the application depends on. */
export function withDebianPackages(bom: Bom, packages: readonly ImagePackage[]): Bom {
  const debs = packages.map(debComponent);
  const root = bom.metadata.component?.["bom-ref"];
  const refs = debs.map((d) => d["bom-ref"]!);
  const dependencies = (bom.dependencies ?? []).map((d) =>
    d.ref === root ? { ...d, dependsOn: [...(d.dependsOn ?? []), ...refs] } : d,
  );
  return {
    ...bom,
    components: [...bom.components, ...debs],
    dependencies: [...dependencies, ...refs.map((ref) => ({ ref }))],
  };
}
