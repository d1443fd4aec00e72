/**
 * Whether this machine can make the image: it takes its files from Debian's amd64 packages through apt, so
 * it needs a Debian amd64 host with apt-get, dpkg-deb, ldd and GNU tar. If not, why, in one line (the
 * release then ships without the image and says so).
 */
import { existsSync, readFileSync } from "node:fs";

const PROGRAMS = ["apt-get", "apt-cache", "dpkg-deb", "dpkg", "ldd", "tar"];

export function imageHostProblem(osRelease = "/etc/os-release"): string | undefined {
  const missing = PROGRAMS.filter((p) => !Bun.which(p));
  if (missing.length > 0) return `${missing.join(", ")} not found: the image is made from Debian packages`;
  const id = existsSync(osRelease) ? /^ID=(.*)$/m.exec(readFileSync(osRelease, "utf8"))?.[1] : undefined;
  if (id?.replaceAll('"', "") !== "debian")
    return `this is not a Debian host (ID=${id ?? "?"}): the image's libraries come from Debian packages`;
  const arch = Bun.spawnSync(["dpkg", "--print-architecture"]).stdout.toString().trim();
  if (arch !== "amd64") return `dpkg's architecture is ${arch}, the image is linux-amd64`;
  return undefined;
}
