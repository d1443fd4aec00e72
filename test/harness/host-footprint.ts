/**
 * What kubelet and containerd could change on the machine, read before and after a run: the kernel
 * settings kubelet tunes, the packet filter, the host's mounts, network links and cgroups, and the places
 * both write to by default. Equal snapshots mean the node sandbox kept everything inside.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { KUBELET_SYSCTLS, NETFILTER_TOOLS } from "../../scripts/control-plane/node-sandbox.ts";

const LISTED_DIRS = ["/var/lib", "/var/log", "/run", "/opt", "/etc/cni", "/etc/containerd"];
const RULE_DUMPS: readonly (readonly string[])[] = [["iptables-save"], ["ip6tables-save"], ["nft", "list", "ruleset"]];

export type Footprint = Record<string, string>;

export function hostFootprint(): Footprint {
  const footprint: Footprint = {};
  for (const key of KUBELET_SYSCTLS) footprint[`sysctl ${key}`] = readFileSync(join("/proc/sys", key), "utf8").trim();
  for (const dir of LISTED_DIRS)
    footprint[`ls ${dir}`] = existsSync(dir) ? readdirSync(dir).sort().join(" ") : "(absent)";
  footprint["mounts"] = mountPoints();
  footprint["links"] = readdirSync("/sys/class/net").sort().join(" ");
  footprint["cgroups"] = cgroups();
  for (const argv of RULE_DUMPS.filter(([tool]) => tool && NETFILTER_TOOLS.includes(tool) && Bun.which(tool))) {
    const dump = Bun.spawnSync([...argv], { stdout: "pipe", stderr: "pipe" });
    // Only the rules: iptables-save prints a timestamp in its comments.
    const rules = dump.stdout
      .toString()
      .split("\n")
      .filter((line) => !line.startsWith("#"));
    footprint[argv.join(" ")] = `status ${dump.exitCode}\n${rules.join("\n")}`;
  }
  return footprint;
}

function mountPoints(): string {
  const lines = readFileSync("/proc/self/mountinfo", "utf8").trim().split("\n");
  return lines
    .map((line) => line.split(" ")[4] ?? "")
    .sort()
    .join(" ");
}

/**
 * Cgroups up to two levels deep whose names kubelet or containerd would give them (kubepods…, k8s.io,
 * containerd, kubelet), in cgroup v1 and v2 layouts alike; other cgroups come and go with the machine.
 */
function cgroups(): string {
  const root = "/sys/fs/cgroup";
  if (!existsSync(root)) return "(none)";
  const below = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
  const paths = below(root).flatMap((name) => [name, ...below(join(root, name)).map((child) => `${name}/${child}`)]);
  return paths
    .filter((path) => /kube|k8s\.io|containerd/.test(path))
    .sort()
    .join(" ");
}
