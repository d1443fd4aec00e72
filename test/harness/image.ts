/**
 * The release's image and SBOM, made once per test run by the release's own code (about 20 s after the
 * executable, which other e2e tests share) into a temporary directory; and containerd for the tests that
 * import and run the image, with whether this machine can run it (the reason, printed once, becomes the
 * skip reason).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { commitEpoch, gitCommit } from "../../scripts/build.ts";
import { startContainerd, type Containerd } from "../../scripts/control-plane/containerd.ts";
import { checkContainerdSupport, type KubeletSupport } from "../../scripts/control-plane/kubelet-support.ts";
import { releaseImageAndSbom, type ReleaseFiles } from "../../scripts/image/release-files.ts";
import { compiledBinary } from "./binary.ts";
import { track } from "./processes.ts";

const repo = join(import.meta.dir, "..", "..");

/** What the image's `org.opencontainers.image.source` label says in tests. */
export const TEST_SOURCE = "https://example.invalid/cloud-controller-manager.git";

export interface BuiltImage extends ReleaseFiles {
  readonly version: string;
  readonly commit: string;
  readonly epoch: number;
}

let built: Promise<BuiltImage> | undefined;

export function releaseImage(): Promise<BuiltImage> {
  built ??= (async () => {
    const binary = await compiledBinary();
    const version = `v${pkg.version}`;
    const commit = await gitCommit();
    const epoch = (await commitEpoch()) ?? 0;
    const out = mkdtempSync(join(tmpdir(), "ccm-image-"));
    const files = await releaseImageAndSbom({
      out,
      projectDir: repo,
      binary,
      version,
      commit,
      epoch,
      license: pkg.license,
      source: TEST_SOURCE,
    });
    return { ...files, version, commit, epoch };
  })();
  return built;
}

let support: Promise<KubeletSupport> | undefined;

export function containerdSupport(): Promise<KubeletSupport> {
  support ??= checkContainerdSupport(track).then((result) => {
    if (!result.ok) console.error(`[containerd] the image tests that run containers are skipped: ${result.reason}`);
    return result;
  });
  return support;
}

export interface TestContainerd extends Containerd {
  /** `ctr` against this containerd, in the namespace kubelets use; resolves its status and output. */
  ctr(args: readonly string[]): Promise<{ status: number; output: string }>;
  /** The environment that points a plain `ctr` at this containerd (as the README's commands run). */
  readonly env: Record<string, string>;
}

export async function startTestContainerd(): Promise<TestContainerd> {
  const dir = mkdtempSync(join(tmpdir(), "ccm-ctr-"));
  const containerd = await startContainerd({ stateDir: dir, logFile: join(dir, "containerd.log"), onSpawn: track });
  const address = containerd.endpoint.replace(/^unix:\/\//, "");
  const env = { CONTAINERD_ADDRESS: address };
  const ctr = async (args: readonly string[]): Promise<{ status: number; output: string }> => {
    const proc = Bun.spawn(["ctr", "--address", address, "--namespace", "k8s.io", ...args], {
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
    return { status: await proc.exited, output: `${out}${err}` };
  };
  const stop = async (): Promise<void> => {
    await containerd.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  return { ...containerd, stop, ctr, env };
}
