/**
 * The README's install section, run: every command of its shell blocks, in order, from the release it
 * builds. The host is simulated under a temporary root: absolute `/etc/` and `/usr/local/bin/` paths in
 * the commands move under it and `install systemd` gets `--root` for its defaults (output is compared
 * with that root taken out again); `kubectl` is a stand-in that does what the two kubectl commands do
 * through the API (test/harness/kubectl-shim.ts); the image's `ctr` commands reach a containerd of the
 * test's own (`CONTAINERD_ADDRESS`) and keep their paths, which are inside the image. Nothing else is
 * substituted.
 *
 * Along the way the release itself is checked: SHA256SUMS (the image and SBOM too), the tarball's
 * contents, INSTALL.md, and the shipped manifests (equal to what the binary prints, accepted by a
 * server-side dry run). test/e2e/image.test.ts reads the image and the SBOM themselves.
 *
 * The tests run in order and build on each other (the release, then installs from it).
 */
import { describe, expect, test } from "bun:test";
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { applyObjects, resourceFor } from "../../scripts/control-plane/admin.ts";
import { imageHostProblem } from "../../scripts/image/host.ts";
import { imageFileName, sbomFileName } from "../../scripts/image/release-files.ts";
import { installSection } from "../../scripts/release.ts";
import { FILE_NAMES, KINDS } from "../../src/manifests/catalog.ts";
import type { KubeObject } from "../../src/kube/objects.ts";
import { controlPlane } from "../harness/control-plane.ts";
import { expectNoNodeProblems } from "../harness/clean-nodes.ts";
import { containerdSupport, startTestContainerd } from "../harness/image.ts";
import { embeddedKubeconfig } from "../harness/kubeconfig.ts";

const repo = join(import.meta.dir, "..", "..");
const README = readFileSync(join(repo, "README.md"), "utf8");
const version = `v${pkg.version}`;
const CHART = join(repo, "charts", "cloud-controller-manager");
const base = `cloud-controller-manager-${version}-linux-x64`;
const imageFile = imageFileName(version);
const sbomFile = sbomFileName(version);
const imageRef = `localhost/cloud-controller-manager:${version}`;
/** The image is made on Debian amd64 hosts only; elsewhere the release ships without it. */
const imageProblem = imageHostProblem();
const imageFiles = imageProblem ? [sbomFile] : [imageFile, sbomFile];
const containerd = imageProblem ? { ok: false as const, reason: imageProblem } : await containerdSupport();
const versionLine = new RegExp(
  `^cloud-controller-manager ${version.replaceAll(".", "\\.")} \\(commit [0-9a-f]{12}(-dirty)?\\)\\n$`,
);

interface Block {
  readonly section: string;
  readonly lang: string;
  readonly body: string;
}

/** The fenced blocks of the README's install section, with the `###` heading each sits under. */
function installBlocks(): Block[] {
  const blocks: Block[] = [];
  let section = "";
  const lines = installSection(README).split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith("### ")) section = line.slice(4);
    const fence = /^```(\w+)$/.exec(line);
    if (!fence) continue;
    const end = lines.indexOf("```", i + 1);
    blocks.push({ section, lang: fence[1]!, body: lines.slice(i + 1, end).join("\n") });
    i = end;
  }
  return blocks;
}

const blocksOf = (section: string): Block[] => installBlocks().filter((b) => b.section === section);

interface Host {
  readonly root: string;
  readonly shims: string;
  cwd: string;
}

let host: Host | undefined;

async function simulatedHost(): Promise<Host> {
  const cp = await controlPlane();
  const root = mkdtempSync(join(tmpdir(), "ccm-host-"));
  for (const dir of ["etc/kubernetes/manifests", "usr/local/bin"]) mkdirSync(join(root, dir), { recursive: true });
  writeFileSync(join(root, "etc/kubernetes/cloud-controller-manager.conf"), embeddedKubeconfig(cp.kubeconfigs.ccm), {
    mode: 0o600,
  });
  writeFileSync(join(root, "etc/kubernetes/cloud.conf"), "autoInstances: true\n", { mode: 0o600 });
  const shims = join(root, "shims");
  mkdirSync(shims);
  writeFileSync(
    join(shims, "kubectl"),
    `#!/bin/sh\nexec "${process.execPath}" "${join(repo, "test/harness/kubectl-shim.ts")}" "$@"\n`,
  );
  chmodSync(join(shims, "kubectl"), 0o755);
  return { root, shims, cwd: repo };
}

/** Host paths in a command move under the simulated root. */
function reroot(h: Host, line: string): string {
  const moved = line.replace(/(^|[\s=>])(\/etc\/|\/usr\/local\/bin\/)/g, `$1${h.root}$2`);
  return /^cloud-controller-manager install systemd /.test(line) ? `${moved} --root=${h.root}` : moved;
}

const unroot = (h: Host, text: string): string => text.replaceAll(h.root, "");

interface ShOptions {
  /** Host paths move under the simulated root (not for paths inside a container). */
  readonly reroot?: boolean;
  readonly env?: Record<string, string>;
}

/** Runs one command line as the README shows it (rerooted), in the host's current directory. */
async function sh(h: Host, line: string, options: ShOptions = {}): Promise<string> {
  const cd = /^cd (\S+)$/.exec(line);
  if (cd) {
    h.cwd = join(h.cwd, cd[1]!);
    return "";
  }
  const cp = await controlPlane();
  const proc = Bun.spawn(["bash", "-euo", "pipefail", "-c", options.reroot === false ? line : reroot(h, line)], {
    cwd: h.cwd,
    env: {
      ...process.env,
      ...options.env,
      PATH: `${h.shims}:${join(h.root, "usr/local/bin")}:${process.env.PATH ?? ""}`,
      KUBECONFIG: cp.kubeconfigs.admin,
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  const status = await proc.exited;
  if (status !== 0) throw new Error(`README command failed (${status}): ${line}\n${stdout}${stderr}`);
  return stdout;
}

/** Every command of a block, in order; returns the last one's output. */
async function runBlock(h: Host, block: Block, options?: ShOptions): Promise<string> {
  expect(block.lang).toBe("sh");
  let output = "";
  for (const line of block.body.split("\n").filter((l) => l.trim() !== "")) output = await sh(h, line, options);
  return output;
}

function sums(dir: string): Map<string, string> {
  return new Map(
    readFileSync(join(dir, "SHA256SUMS"), "utf8")
      .trim()
      .split("\n")
      .map((l) => [l.slice(66), l.slice(0, 64)] as const),
  );
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((p) => statSync(join(dir, p)).isFile())
    .sort();
}

/** ELF e_machine: 0x3e x86-64, 0xb7 AArch64. */
const elfMachine = (path: string): number => readFileSync(path).readUInt16LE(18);

async function sha256sumCheck(dir: string, ...flags: string[]): Promise<string> {
  const proc = Bun.spawn(["sha256sum", "-c", ...flags, "SHA256SUMS"], { cwd: dir, stdout: "pipe", stderr: "pipe" });
  const out = await new Response(proc.stdout).text();
  expect(await proc.exited).toBe(0);
  return out;
}

describe("release and README install", () => {
  test("air-gapped: the release builds, verifies and unpacks as the README says", async () => {
    const h = (host = await simulatedHost());
    const [build, site, image, ...rest] = blocksOf("Air-gapped sites");
    expect([image?.body.split("\n")[0], rest]).toEqual(["cd ..", []]);
    expect(build!.body).toBe("npm run release");
    await runBlock(h, build!);
    const release = join(repo, "dist", "release");
    const arches = readdirSync(release).includes("cloud-controller-manager-linux-arm64") ? ["x64", "arm64"] : ["x64"];
    expect(readdirSync(release).sort()).toEqual(
      [
        "SHA256SUMS",
        ...arches.flatMap((a) => [
          `cloud-controller-manager-linux-${a}`,
          `cloud-controller-manager-${version}-linux-${a}.tar.gz`,
        ]),
        ...imageFiles,
      ].sort(),
    );
    const checked = await sha256sumCheck(release);
    for (const file of ["cloud-controller-manager-linux-x64", `${base}.tar.gz`, ...imageFiles])
      expect(checked).toContain(`${file}: OK\n`);
    expect(elfMachine(join(release, "cloud-controller-manager-linux-x64"))).toBe(0x3e);
    if (arches.includes("arm64")) expect(elfMachine(join(release, "cloud-controller-manager-linux-arm64"))).toBe(0xb7);

    h.cwd = mkdtempSync(join(tmpdir(), "ccm-site-"));
    for (const file of [`${base}.tar.gz`, "SHA256SUMS", ...imageFiles])
      copyFileSync(join(release, file), join(h.cwd, file));
    const printed = await runBlock(h, site!);
    expect(h.cwd.endsWith(base)).toBe(true);
    expect(printed).toMatch(versionLine);
    expect(sums(release).get("cloud-controller-manager-linux-x64")).toBe(sums(h.cwd).get("cloud-controller-manager"));
  }, 300_000);

  test("the tarball: executable, every manifest for every provider as the binary prints it, INSTALL.md", async () => {
    const h = host!;
    const providers = readdirSync(join(h.cwd, "manifests")).sort();
    const chartFiles = filesUnder(CHART);
    expect(providers).toContain("fake");
    expect(filesUnder(h.cwd)).toEqual(
      [
        "INSTALL.md",
        "SHA256SUMS",
        "cloud-controller-manager",
        ...providers.flatMap((p) => KINDS.map((k) => `manifests/${p}/${FILE_NAMES[k]}`).sort()),
        ...chartFiles.map((f) => `chart/cloud-controller-manager/${f}`),
      ].sort(),
    );
    for (const f of chartFiles)
      expect(readFileSync(join(h.cwd, "chart/cloud-controller-manager", f), "utf8")).toBe(
        readFileSync(join(CHART, f), "utf8"),
      );
    expect([...sums(h.cwd).keys()].sort()).toEqual(filesUnder(h.cwd).filter((f) => f !== "SHA256SUMS"));
    const install = readFileSync(join(h.cwd, "INSTALL.md"), "utf8");
    expect(install).toStartWith(`# cloud-controller-manager ${version} for linux-x64\n`);
    expect(install).toContain(installSection(README));
    expect(install).toContain(`- \`${sbomFile}\` (beside this tarball): the SBOM`);
    expect(install).toContain(
      imageProblem
        ? `- no container image: ${imageProblem}`
        : `- \`${imageFile}\` (beside this tarball): the container image \`${imageRef}\``,
    );
    for (const kind of KINDS) {
      const proc = Bun.spawn(
        [
          "./cloud-controller-manager",
          "manifests",
          kind,
          "--cloud-provider=fake",
          "--cloud-config=/etc/kubernetes/cloud.conf",
          "--configure-cloud-routes=false",
        ],
        { cwd: h.cwd, stdout: "pipe" },
      );
      expect(await new Response(proc.stdout).text()).toBe(
        readFileSync(join(h.cwd, "manifests/fake", FILE_NAMES[kind]), "utf8"),
      );
    }
    const cp = await controlPlane();
    for (const p of providers) {
      for (const file of readdirSync(join(h.cwd, "manifests", p)).filter((f) => f.endsWith(".yaml"))) {
        const parsed = Bun.YAML.parse(readFileSync(join(h.cwd, "manifests", p, file), "utf8")) as
          KubeObject | KubeObject[] | null;
        // A provider without custom resources ships crds.yaml holding only a comment: nothing to apply.
        const objects = [parsed ?? []].flat();
        await applyObjects(cp.admin, objects, { dryRun: true });
      }
    }
  }, 120_000);

  test("systemd: the README's commands install the unit and print the README's next steps", async () => {
    const h = host!;
    await expectNoNodeProblems("10.244.0.0/16");
    const [commands, printed] = blocksOf("systemd");
    expect(printed!.lang).toBe("text");
    const output = await runBlock(h, commands!);
    expect(unroot(h, output)).toBe(`${printed!.body}\n`);
    const unit = readFileSync(join(h.root, "etc/systemd/system/cloud-controller-manager.service"), "utf8");
    expect(unit).toContain("ExecStart=/usr/local/bin/cloud-controller-manager $CCM_ARGS\n");
    expect(readFileSync(join(h.root, "usr/local/bin/cloud-controller-manager"))).toEqual(
      readFileSync(join(h.cwd, "cloud-controller-manager")),
    );
    const check = printed!.body
      .split("\n")
      .find((l) => l.includes(" check "))!
      .trim();
    expect(await sh(h, check)).toContain("no problems found");
  }, 120_000);

  test("static pod: the README's commands write a manifest the API server accepts, and check passes", async () => {
    const h = host!;
    await expectNoNodeProblems("10.244.0.0/16");
    const [commands, ...rest] = blocksOf("Static pod");
    expect(rest).toEqual([]);
    await runBlock(h, commands!);
    const pod = Bun.YAML.parse(
      readFileSync(join(h.root, "etc/kubernetes/manifests/cloud-controller-manager.yaml"), "utf8"),
    ) as KubeObject;
    expect(pod.kind).toBe("Pod");
    const cp = await controlPlane();
    await applyObjects(cp.admin, [pod], { dryRun: true });
  }, 120_000);

  test("in-cluster: the README's commands create the Secret, the RBAC and the DaemonSet", async () => {
    const h = host!;
    const cp = await controlPlane();
    const [commands, ...rest] = blocksOf("In-cluster");
    expect(rest).toEqual([]);
    const secret = resourceFor("Secret");
    const daemonSet = resourceFor("DaemonSet");
    try {
      await runBlock(h, commands!);
      const stored = await cp.admin.get<KubeObject & { data: Record<string, string> }>(
        secret,
        "cloud-controller-manager-cloud-config",
        { namespace: "kube-system" },
      );
      expect(Buffer.from(stored.data["cloud.conf"]!, "base64").toString()).toBe("autoInstances: true\n");
      const ds = await cp.admin.get<KubeObject & { spec: { template: { spec: { serviceAccountName: string } } } }>(
        daemonSet,
        "cloud-controller-manager",
        { namespace: "kube-system" },
      );
      expect(ds.spec.template.spec.serviceAccountName).toBe("cloud-controller-manager");
    } finally {
      await cp.admin.delete(daemonSet, "cloud-controller-manager", { namespace: "kube-system" }).catch(() => undefined);
      await cp.admin
        .delete(secret, "cloud-controller-manager-cloud-config", { namespace: "kube-system" })
        .catch(() => undefined);
    }
  }, 120_000);

  test.skipIf(!containerd.ok)(
    `the image: imported into containerd, run, and named in a DaemonSet as the README says${containerd.ok ? "" : ` (skipped: ${containerd.reason})`}`,
    async () => {
      const h = host!;
      const [, , block] = blocksOf("Air-gapped sites");
      const runtime = await startTestContainerd();
      const unpacked = h.cwd;
      try {
        // Paths in these commands are inside the image: nothing moves under the simulated root.
        const outputs: string[] = [];
        for (const line of block!.body.split("\n"))
          outputs.push(await sh(h, line, { reroot: false, env: runtime.env }));
        expect(outputs[1]).toContain(`unpacking ${imageRef} (sha256:`);
        expect(outputs[2]).toMatch(versionLine);
        const parsed = Bun.YAML.parse(readFileSync(join(h.cwd, "cloud-controller-manager.yaml"), "utf8")) as
          KubeObject | KubeObject[];
        const ds = [parsed].flat().find((o) => o.kind === "DaemonSet") as KubeObject & {
          spec: { template: { spec: { containers: { image: string; command: string[] }[] } } };
        };
        const [container] = ds.spec.template.spec.containers;
        expect([container!.image, container!.command[0]]).toEqual([
          imageRef,
          "/usr/local/bin/cloud-controller-manager",
        ]);
      } finally {
        h.cwd = unpacked;
        await runtime.stop();
      }
    },
    120_000,
  );
});
