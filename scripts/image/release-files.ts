/**
 * The release's image and SBOM, beside the executables in the release directory:
 *
 *   cloud-controller-manager-<version>-linux-amd64.oci.tar   the image (skipped, with the reason, on a host
 *                                                            that cannot make it: see host.ts)
 *   cloud-controller-manager-<version>.cdx.json              the SBOM: npm packages and the image's .debs
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { cacheRoot } from "../control-plane/binaries.ts";
import { buildImage, type Image, type ImageOptions } from "./build-image.ts";
import { imageHostProblem } from "./host.ts";
import { npmBom, withDebianPackages } from "./sbom.ts";

export interface ReleaseFilesOptions extends Omit<ImageOptions, "file" | "debCache"> {
  readonly out: string;
  /** The project (package.json, node_modules) the SBOM describes. */
  readonly projectDir: string;
}

export interface ReleaseFiles {
  readonly image?: Image;
  readonly imageSkipped?: string;
  readonly sbom: string;
}

export const imageFileName = (version: string): string => `cloud-controller-manager-${version}-linux-amd64.oci.tar`;
export const sbomFileName = (version: string): string => `cloud-controller-manager-${version}.cdx.json`;

export async function releaseImageAndSbom(o: ReleaseFilesOptions): Promise<ReleaseFiles> {
  const problem = imageHostProblem();
  const image = problem
    ? undefined
    : await buildImage({ ...o, file: join(o.out, imageFileName(o.version)), debCache: join(cacheRoot(), "debs") });
  const bom = withDebianPackages(await npmBom(o.projectDir), image?.packages ?? []);
  const sbom = join(o.out, sbomFileName(o.version));
  writeFileSync(sbom, `${JSON.stringify(bom, null, 2)}\n`);
  return { ...(image ? { image } : { imageSkipped: problem }), sbom };
}
