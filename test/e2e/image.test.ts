/**
 * The release's container image, read back by tools other than the code that wrote it: its archive and
 * layer entries (sorted, owned by 0:0, dated at the commit), crane (go-containerregistry) through both of
 * its readers, the docker-archive `manifest.json` and the OCI layout, the executable run by the layer's own
 * loader and libraries, and, where containerd runs, `ctr images import` and `ctr run` of the image, ending
 * with the manager inside it leading against the test API server. And the SBOM beside it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Spec, Validation } from "@cyclonedx/cyclonedx-library";
import { ensureCrane } from "../../scripts/control-plane/crane-binary.ts";
import { freePort } from "../../scripts/control-plane/ports.ts";
import { sha256File } from "../../scripts/image/debs.ts";
import { imageHostProblem } from "../../scripts/image/host.ts";
import { BINARY_PATH } from "../../scripts/image/rootfs.ts";
import type { Bom, Component } from "../../scripts/image/sbom.ts";
import { startCcm } from "../harness/ccm.ts";
import { controlPlane } from "../harness/control-plane.ts";
import {
  containerdSupport,
  releaseImage,
  startTestContainerd,
  TEST_SOURCE,
  type BuiltImage,
  type TestContainerd,
} from "../harness/image.ts";
import { embeddedKubeconfig } from "../harness/kubeconfig.ts";
import { track } from "../harness/processes.ts";
import { grantLease } from "../harness/rbac.ts";
import { eventually } from "../harness/wait.ts";

const BUILD_TIMEOUT_MS = 300_000;
const hostProblem = imageHostProblem();
const runtime = hostProblem ? { ok: false as const, reason: hostProblem } : await containerdSupport();

async function run(args: readonly string[], env?: Record<string, string>): Promise<string> {
  const proc = Bun.spawn([...args], { stdout: "pipe", stderr: "pipe", env: env ?? { ...process.env } });
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  if ((await proc.exited) !== 0) throw new Error(`${args.join(" ")} failed:\n${out}${err}`);
  return out;
}

interface TarEntry {
  readonly mode: string;
  readonly owner: string;
  readonly mtime: number;
  readonly name: string;
}

/** `tar -tv` of an archive, with numeric owners and times in seconds. */
async function listTar(file: string, gzip = false): Promise<TarEntry[]> {
  const out = await run(["tar", gzip ? "-tzv" : "-tv", "--numeric-owner", "--full-time", "-f", file], {
    TZ: "UTC",
    PATH: process.env.PATH ?? "",
  });
  return out
    .trim()
    .split("\n")
    .map((line) => {
      const [mode, owner, , date, time, ...rest] = line.split(/\s+/);
      const name = rest.join(" ").replace(/ -> .*$/, "");
      return { mode: mode!, owner: owner!, mtime: Date.parse(`${date}T${time}Z`) / 1000, name };
    });
}

let image: BuiltImage;
/** The archive unpacked (an OCI layout) and its one layer unpacked (the root filesystem). */
let layout: string;
let rootfs: string;
let readDir: string | undefined;

beforeAll(async () => {
  if (hostProblem) return;
  image = await releaseImage();
  const dir = (readDir = mkdtempSync(join(tmpdir(), "ccm-image-read-")));
  layout = join(dir, "layout");
  rootfs = join(dir, "rootfs");
  mkdirSync(layout);
  mkdirSync(rootfs);
  await run(["tar", "-xf", image.image!.archive.file, "-C", layout]);
  const layer = join(layout, "blobs", image.image!.archive.layer.digest.replace(":", "/"));
  await run(["tar", "-xzf", layer, "-C", rootfs]);
}, BUILD_TIMEOUT_MS);

// The unpacked copies hold the executable twice (about 250 MB).
afterAll(() => {
  if (readDir) rmSync(readDir, { recursive: true, force: true });
});

describe.skipIf(!!hostProblem)(`the image${hostProblem ? ` (skipped: ${hostProblem})` : ""}`, () => {
  test("archive: OCI layout plus docker manifest.json, entries sorted, owned by 0:0, dated at the commit", async () => {
    const { archive, ref } = image.image!;
    const entries = await listTar(archive.file);
    const blobs = [archive.config, archive.layer, archive.manifest].map((d) => `blobs/${d.digest.replace(":", "/")}`);
    expect(entries.map((e) => e.name)).toEqual(
      ["blobs/", "blobs/sha256/", ...blobs.sort(), "index.json", "manifest.json", "oci-layout"].sort(),
    );
    expect(new Set(entries.map((e) => `${e.owner} ${e.mtime}`))).toEqual(new Set([`0/0 ${image.epoch}`]));
    expect(ref).toBe(`localhost/cloud-controller-manager:${image.version}`);
    const index = JSON.parse(readFileSync(join(layout, "index.json"), "utf8")) as {
      manifests: { digest: string; annotations: Record<string, string> }[];
    };
    expect(index.manifests.map((m) => m.digest)).toEqual([archive.manifest.digest]);
    expect(index.manifests[0]!.annotations["org.opencontainers.image.ref.name"]).toBe(ref);
    const docker = JSON.parse(readFileSync(join(layout, "manifest.json"), "utf8")) as { RepoTags: string[] }[];
    expect(docker.map((d) => d.RepoTags)).toEqual([[ref]]);
    for (const blob of blobs)
      expect(`sha256:${sha256File(join(layout, blob))}`).toBe(blob.replace("blobs/sha256/", "sha256:"));
  });

  test("layer: the executable, its libraries, CA certificates, users and /tmp, nothing else", async () => {
    const entries = await listTar(join(layout, "blobs", image.image!.archive.layer.digest.replace(":", "/")), true);
    expect(entries.map((e) => e.name)).toEqual([...entries.map((e) => e.name)].sort());
    expect(new Set(entries.map((e) => `${e.owner} ${e.mtime}`))).toEqual(new Set([`0/0 ${image.epoch}`]));
    const files = entries.filter((e) => !e.name.endsWith("/")).map((e) => `${e.mode} ${e.name}`);
    expect(files).toEqual([
      "-rw-r--r-- etc/group",
      "-rw-r--r-- etc/nsswitch.conf",
      "-rw-r--r-- etc/passwd",
      "-rw-r--r-- etc/ssl/certs/ca-certificates.crt",
      "-rwxr-xr-x lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
      "-rwxr-xr-x lib/x86_64-linux-gnu/libc.so.6",
      "-rw-r--r-- lib/x86_64-linux-gnu/libdl.so.2",
      "-rw-r--r-- lib/x86_64-linux-gnu/libgcc_s.so.1",
      "-rw-r--r-- lib/x86_64-linux-gnu/libm.so.6",
      "-rw-r--r-- lib/x86_64-linux-gnu/libpthread.so.0",
      "lrwxrwxrwx lib64/ld-linux-x86-64.so.2",
      "-rwxr-xr-x usr/local/bin/cloud-controller-manager",
    ]);
    expect(entries.find((e) => e.name === "tmp/")?.mode).toBe("drwxrwxrwt");
    expect(readFileSync(join(rootfs, "etc/passwd"), "utf8")).toContain("nonroot:x:65532:65532:");
    expect(
      readFileSync(join(rootfs, "etc/ssl/certs/ca-certificates.crt"), "utf8").match(/BEGIN CERTIFICATE/g)!.length,
    ).toBeGreaterThan(100);
  });

  test("the layer's own loader and libraries run the executable (no library from the host)", async () => {
    const libs = join(rootfs, "lib/x86_64-linux-gnu");
    const loader = [join(libs, "ld-linux-x86-64.so.2"), "--library-path", libs];
    const binary = join(rootfs, BINARY_PATH);
    const resolved = await run([...loader, "--list", binary], {});
    for (const line of resolved.split("\n").filter((l) => l.includes("=>"))) expect(line).toContain(` => ${libs}/`);
    expect(await run([...loader, binary, "--version"], {})).toStartWith(
      `cloud-controller-manager ${image.version} (commit ${image.commit})\n`,
    );
  });

  test(
    "crane reads the docker-archive side and, from a registry, the OCI layout: config, labels, digests",
    async () => {
      const crane = await ensureCrane((line) => console.error(`[crane] ${line}`));
      const { archive } = image.image!;
      expect(await run([crane, "validate", "--tarball", archive.file])).toStartWith("PASS");
      const port = await freePort();
      const registry = track(
        Bun.spawn([crane, "registry", "serve", "--address", `127.0.0.1:${port}`], {
          stdout: "ignore",
          stderr: "ignore",
        }),
      );
      try {
        const ref = `127.0.0.1:${port}/cloud-controller-manager:${image.version}`;
        const pushed = await eventually<string>("crane push of the OCI layout", () =>
          run([crane, "push", layout, ref]).catch(() => false),
        );
        expect(pushed.trim()).toEndWith(`@${archive.manifest.digest}`);
        expect(await run([crane, "validate", "--remote", ref])).toStartWith("PASS");
        const config = JSON.parse(await run([crane, "config", ref])) as {
          architecture: string;
          os: string;
          config: { User: string; Entrypoint: string[]; Labels: Record<string, string> };
        };
        expect([config.os, config.architecture]).toEqual(["linux", "amd64"]);
        expect(config.config.User).toBe("65532:65532");
        expect(config.config.Entrypoint).toEqual([BINARY_PATH]);
        expect(config.config.Labels).toMatchObject({
          "org.opencontainers.image.version": image.version,
          "org.opencontainers.image.revision": image.commit,
          "org.opencontainers.image.source": TEST_SOURCE,
          "org.opencontainers.image.licenses": "Apache-2.0",
        });
      } finally {
        registry.kill();
      }
    },
    BUILD_TIMEOUT_MS,
  );

  test("SBOM: valid CycloneDX 1.6 with the npm packages and the image's Debian packages and files", async () => {
    const text = readFileSync(image.sbom, "utf8");
    expect(await new Validation.JsonStrictValidator(Spec.Version.v1dot6).validate(text)).toBeNull();
    const bom = JSON.parse(text) as Bom;
    expect([bom.bomFormat, bom.specVersion]).toEqual(["CycloneDX", "1.6"]);
    const byName = (name: string): Component | undefined =>
      bom.components.find((c) => (c.group ? `${c.group}/${c.name}` : c.name) === name);
    expect(byName("@kubernetes/client-node")?.purl).toBe("pkg:npm/%40kubernetes/client-node@1.4.0");
    expect(byName("eslint")).toBeUndefined();
    for (const { deb, files } of image.image!.packages) {
      const c = byName(deb.name)!;
      expect(c.purl).toBe(`pkg:deb/debian/${deb.name}@${encodeURIComponent(deb.version)}?arch=${deb.arch}`);
      expect(c.hashes).toEqual([{ alg: "SHA-256", content: sha256File(deb.file) }]);
      expect(c.components!.map((f) => [f.name, f.hashes![0]!.content])).toEqual(
        files.map((f) => [f.path, sha256File(join(rootfs, f.path))]),
      );
    }
    expect(byName("libc6")?.purl).toStartWith("pkg:deb/debian/libc6@2.");
    const root = bom.metadata.component!["bom-ref"];
    const rootDeps = bom.dependencies!.find((d) => d.ref === root)!.dependsOn!;
    expect(rootDeps).toContain(byName("libc6")!["bom-ref"]!);
  });
});

describe.skipIf(!runtime.ok)(`the image in containerd${runtime.ok ? "" : ` (skipped: ${runtime.reason})`}`, () => {
  let containerd: TestContainerd;
  beforeAll(async () => {
    containerd = await startTestContainerd();
  });
  afterAll(async () => {
    await containerd?.stop();
  });

  test(
    "ctr imports it under its name and runs the executable in it",
    async () => {
      const imported = await containerd.ctr(["images", "import", image.image!.archive.file]);
      expect(imported).toMatchObject({ status: 0 });
      expect((await containerd.ctr(["images", "ls", "-q"])).output.split("\n")).toContain(image.image!.ref);
      const version = await containerd.ctr(["run", "--rm", image.image!.ref, "ccm-version", BINARY_PATH, "--version"]);
      expect(version).toEqual({
        status: 0,
        output: `cloud-controller-manager ${image.version} (commit ${image.commit})\n`,
      });
    },
    BUILD_TIMEOUT_MS,
  );

  test(
    "the manager in the container, as 65532, leads and syncs against the test API server, and stops on SIGTERM",
    async () => {
      const cp = await controlPlane();
      const config = mkdtempSync(join(tmpdir(), "ccm-image-config-"));
      // The image runs as 65532: the directory (0700 from mkdtemp) and the file must be readable to it.
      chmodSync(config, 0o755);
      writeFileSync(join(config, "kubeconfig"), embeddedKubeconfig(cp.kubeconfigs.ccm), { mode: 0o644 });
      await grantLease("e2e-image");
      const ccm = startCcm({
        binary: "ctr",
        args: [
          ...["--address", containerd.endpoint.replace(/^unix:\/\//, ""), "--namespace", "k8s.io"],
          ...["run", "--rm", "--net-host", "--mount", `type=bind,src=${config},dst=/config,options=rbind:ro`],
          ...[image.image!.ref, "ccm-manager", BINARY_PATH],
          ...["--cloud-provider=fake", "--kubeconfig=/config/kubeconfig", "--secure-port=0"],
          ...["--leader-elect-resource-name=e2e-image", "--cluster-cidr=10.244.0.0/16"],
        ],
      });
      await ccm.waitForLine(/successfully acquired lease kube-system\/e2e-image/, 60_000);
      await ccm.waitForLine(/caches synced: \d+ node\(s\), \d+ service\(s\)/);
      const ps = await containerd.ctr(["tasks", "ps", "ccm-manager"]);
      expect(ps.status).toBe(0);
      const pid = /^\s*(\d+)/m.exec(ps.output.split("\n").slice(1).join("\n"))?.[1];
      expect(readFileSync(`/proc/${pid}/status`, "utf8")).toMatch(/^Uid:\s+65532\s/m);
      expect(await ccm.stop("SIGTERM")).toBe(0);
    },
    BUILD_TIMEOUT_MS,
  );
});
