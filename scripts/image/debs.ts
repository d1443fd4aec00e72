/**
 * Debian packages for the image, as distroless images are made: `apt-get download` (the candidate version
 * apt would install), checked against the archive's SHA256 from `apt-cache show`, cached outside the
 * repository (`<cache root>/debs/`, like the Go builds) and unpacked with `dpkg-deb -x`. A cached .deb of
 * the candidate version is reused without the network.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { basename, join } from "node:path";

export interface DebPackage {
  readonly name: string;
  readonly version: string;
  readonly arch: string;
  /** The cached .deb. */
  readonly file: string;
  /** Of the .deb, as the archive's index lists it. */
  readonly sha256: string;
}

interface Candidate {
  readonly version: string;
  readonly arch: string;
  readonly filename: string;
  readonly sha256: string;
}

export function sha256File(path: string): string {
  return new Bun.CryptoHasher("sha256").update(readFileSync(path)).digest("hex");
}

async function output(args: string[], cwd?: string): Promise<string> {
  const proc = Bun.spawn(args, { cwd, stdout: "pipe", stderr: "pipe" });
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  if ((await proc.exited) !== 0) throw new Error(`${args.join(" ")} failed: ${err.trim()}`);
  return out;
}

/** The fields of the first stanza `apt-cache show --no-all-versions` prints (the candidate). */
export function parseStanza(text: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const line of text.split("\n\n")[0]!.split("\n")) {
    const match = /^([A-Za-z0-9-]+): (.*)$/.exec(line);
    if (match) fields[match[1]!] = match[2]!;
  }
  return fields;
}

async function candidate(name: string): Promise<Candidate> {
  const fields = parseStanza(await output(["apt-cache", "show", "--no-all-versions", name]));
  const { Version: version, Architecture: arch, Filename: filename, SHA256: sha256 } = fields;
  if (!version || !arch || !filename || !sha256)
    throw new Error(`apt-cache show ${name}: no candidate version (run apt-get update?)`);
  return { version, arch, filename, sha256 };
}

/** The candidate .deb of each package, from the cache or downloaded into it. */
export async function fetchDebs(names: readonly string[], cacheDir: string): Promise<DebPackage[]> {
  mkdirSync(cacheDir, { recursive: true });
  const debs: DebPackage[] = [];
  for (const name of names) {
    const c = await candidate(name);
    const file = join(cacheDir, basename(c.filename));
    if (!existsSync(file) || sha256File(file) !== c.sha256) await download(name, c, file);
    debs.push({ name, version: c.version, arch: c.arch, file, sha256: c.sha256 });
  }
  return debs;
}

async function download(name: string, c: Candidate, file: string): Promise<void> {
  const tmp = mkdtempSync(`${file}.tmp-`);
  try {
    await output(["apt-get", "download", "-q", `${name}=${c.version}`], tmp);
    const [got] = readdirSync(tmp).filter((f) => f.endsWith(".deb"));
    if (!got) throw new Error(`apt-get download ${name}=${c.version} wrote no .deb`);
    const sum = sha256File(join(tmp, got));
    if (sum !== c.sha256) throw new Error(`${got}: sha256 ${sum}, the archive lists ${c.sha256}`);
    renameSync(join(tmp, got), file);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** Unpacks a package's files (not its maintainer scripts) under `dir`. */
export async function extractDeb(deb: DebPackage, dir: string): Promise<string> {
  mkdirSync(dir, { recursive: true });
  await output(["dpkg-deb", "-x", deb.file, dir]);
  return dir;
}
