/**
 * The image's root filesystem, staged in a directory: the executable at /usr/local/bin, the shared
 * libraries it loads (what `ldd` names, plus what glibc itself loads at run time) taken from the unpacked
 * Debian packages, the CA bundle, a nonroot user and /tmp. Nothing else: no shell, no package manager.
 * Every file records the package it came from, for the SBOM.
 */
import {
  chmodSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, posix } from "node:path";
import { sha256File } from "./debs.ts";

export const BINARY_PATH = "/usr/local/bin/cloud-controller-manager";
export const CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt";
export const NONROOT = 65532;

/**
 * glibc loads libgcc_s at run time to unwind a cancelled or exiting thread (pthread_cancel, pthread_exit)
 * and for backtrace(); ldd cannot see a dlopen, so it is named here, as distroless/cc ships it.
 */
export const RUNTIME_LIBRARIES: readonly string[] = ["/lib/x86_64-linux-gnu/libgcc_s.so.1"];

/** A file placed in the image, and the package it came from. */
export interface ImageFile {
  readonly path: string;
  readonly sha256: string;
  readonly pkg: string;
}

/** An unpacked Debian package: its name and the directory `dpkg-deb -x` wrote. */
export interface Unpacked {
  readonly name: string;
  readonly dir: string;
}

/** The absolute paths `ldd` resolves for `binary` (the loader included, the vDSO left out). */
export async function lddPaths(binary: string): Promise<string[]> {
  const proc = Bun.spawn(["ldd", binary], { stdout: "pipe", stderr: "pipe" });
  const out = await new Response(proc.stdout).text();
  if ((await proc.exited) !== 0) throw new Error(`ldd ${binary} failed (not a dynamic executable?)`);
  return parseLdd(out);
}

export function parseLdd(out: string): string[] {
  const paths = out.split("\n").flatMap((line) => {
    if (/not found/.test(line)) throw new Error(`ldd: ${line.trim()}`);
    const match = /(?:=>\s*)?(\/\S+)\s+\(0x[0-9a-f]+\)/.exec(line);
    return match ? [match[1]!] : [];
  });
  return [...new Set(paths)].sort();
}

/** `path` inside a package, as it is or across the /usr merge (a host may resolve either spelling). */
function inPackage(pkgs: readonly Unpacked[], path: string): { pkg: Unpacked; path: string } | undefined {
  const spellings = [path, path.replace(/^\/usr\//, "/"), `/usr${path}`];
  for (const pkg of pkgs)
    for (const p of spellings) if (existsSync(join(pkg.dir, p)) || isLink(join(pkg.dir, p))) return { pkg, path: p };
  return undefined;
}

const isLink = (p: string): boolean => {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
};

/** Copies `path` from its package into `root`, and a symlink's target after it. */
function copyFromPackages(root: string, pkgs: readonly Unpacked[], path: string, files: Map<string, ImageFile>): void {
  const found = inPackage(pkgs, path);
  if (!found) throw new Error(`${path} is in none of the packages ${pkgs.map((p) => p.name).join(", ")}`);
  if (files.has(found.path)) return;
  const source = join(found.pkg.dir, found.path);
  const target = join(root, found.path);
  mkdirSync(dirname(target), { recursive: true });
  if (lstatSync(source).isSymbolicLink()) {
    const link = readlinkSync(source);
    symlinkSync(link, target);
    files.set(found.path, { path: found.path, sha256: "", pkg: found.pkg.name });
    copyFromPackages(root, pkgs, posix.resolve(posix.dirname(found.path), link), files);
    return;
  }
  copyFileSync(source, target);
  chmodSync(target, lstatSync(source).mode & 0o7777);
  files.set(found.path, { path: found.path, sha256: sha256File(target), pkg: found.pkg.name });
}

/** What update-ca-certificates writes: every Mozilla certificate of the package, in name order. */
function caBundle(pkg: Unpacked): string {
  const dir = join(pkg.dir, "usr/share/ca-certificates/mozilla");
  const certs = readdirSync(dir)
    .filter((f) => f.endsWith(".crt"))
    .sort();
  if (certs.length === 0) throw new Error(`${pkg.name} holds no certificates in ${dir}`);
  return certs.map((f) => readFileSync(join(dir, f), "utf8")).join("");
}

/** The users and name-service files: root, and the unprivileged user the image runs as. */
const ETC: Readonly<Record<string, string>> = {
  "/etc/passwd": `root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:${NONROOT}:${NONROOT}:nonroot:/nonexistent:/sbin/nologin\n`,
  "/etc/group": `root:x:0:\nnonroot:x:${NONROOT}:\n`,
  "/etc/nsswitch.conf": "passwd: files\ngroup: files\nhosts: files dns\n",
};

function writeText(root: string, path: string, text: string, mode = 0o644): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
  chmodSync(join(root, path), mode);
}

/**
 * Stages the root filesystem under `root` (an empty directory). `pkgs` must hold ca-certificates and every
 * library the binary needs; a library found in none of them is an error naming it.
 */
export async function stageRootfs(root: string, binary: string, pkgs: readonly Unpacked[]): Promise<ImageFile[]> {
  const files = new Map<string, ImageFile>();
  for (const path of [...(await lddPaths(binary)), ...RUNTIME_LIBRARIES]) copyFromPackages(root, pkgs, path, files);
  const certs = pkgs.find((p) => p.name === "ca-certificates");
  if (!certs) throw new Error("the image needs the ca-certificates package");
  writeText(root, CA_BUNDLE, caBundle(certs));
  files.set(CA_BUNDLE, { path: CA_BUNDLE, sha256: sha256File(join(root, CA_BUNDLE)), pkg: certs.name });
  for (const [path, text] of Object.entries(ETC)) writeText(root, path, text);
  mkdirSync(join(root, "tmp"));
  mkdirSync(join(root, dirname(BINARY_PATH)), { recursive: true });
  copyFileSync(binary, join(root, BINARY_PATH));
  chmodSync(join(root, BINARY_PATH), 0o755);
  normalizeDirs(root);
  chmodSync(join(root, "tmp"), 0o1777);
  // Symlinks have no content of their own: the SBOM lists the files they point to.
  return [...files.values()].filter((f) => f.sha256 !== "").sort((a, b) => a.path.localeCompare(b.path));
}

/** Directories 0755, whatever the umask was. */
function normalizeDirs(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const path = join(dir, entry.name);
    chmodSync(path, 0o755);
    normalizeDirs(path);
  }
}
