/**
 * A mount namespace for each node-side process (containerd, every kubelet), so running them changes
 * nothing on the machine. kubelet tunes host kernel settings at start (`vm.overcommit_memory`,
 * `kernel.panic`, …) and, with some settings, installs iptables rules. Inside the namespace:
 * - `/proc/sys` is read-only, except the files kubelet writes, each covered by a private copy taken at
 *   start (so kubelet sees the value it set, and the host keeps its own); any other write fails loudly;
 * - every iptables / ip6tables / nft program, on the PATH and where it really lives, is a stub that fails;
 * - `/var/lib` and `/var/log` are overlays whose changes stay in the sandbox directory: kubelet creates
 *   `/var/log/containers`, `/var/log/pods` and its device-plugin socket in `/var/lib/kubelet` wherever its
 *   `--root-dir` is (and two kubelets would take that socket from each other).
 * The namespace, and every mount in it, ends with the process.
 */
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The host kernel settings kubelet's container manager sets (`setupKernelTunables`). */
export const KUBELET_SYSCTLS: readonly string[] = [
  "vm/overcommit_memory",
  "vm/panic_on_oom",
  "kernel/panic",
  "kernel/panic_on_oops",
  "kernel/keys/root_maxkeys",
  "kernel/keys/root_maxbytes",
];

/** Programs that would change the host's packet filter. */
export const NETFILTER_TOOLS: readonly string[] = [
  "iptables",
  "ip6tables",
  "iptables-save",
  "ip6tables-save",
  "iptables-restore",
  "ip6tables-restore",
  "iptables-legacy",
  "ip6tables-legacy",
  "iptables-nft",
  "ip6tables-nft",
  "nft",
];

const STUB = `#!/bin/sh
echo "$(basename "$0"): not available in this sandbox (the host's packet filter is left alone)" >&2
exit 3
`;

const SCRIPT = `set -eu
dir=$1
shift
mount --bind /proc/sys /proc/sys
mount -o remount,bind,ro /proc/sys
for f in ${KUBELET_SYSCTLS.join(" ")}; do
  copy="$dir/sysctl/$(echo "$f" | tr / _)"
  cat "/proc/sys/$f" > "$copy"
  mount --bind "$copy" "/proc/sys/$f"
done
for tool in ${NETFILTER_TOOLS.join(" ")}; do
  real=$(PATH=/usr/local/sbin:/usr/sbin:/sbin:/usr/local/bin:/usr/bin:/bin command -v "$tool" || true)
  if [ -n "$real" ]; then mount --bind "$dir/stub/iptables" "$(readlink -f "$real")"; fi
done
for d in /var/lib /var/log; do
  [ -d "$d" ] || continue
  layer="$dir/overlay$(echo "$d" | tr / -)"
  mkdir -p "$layer/upper" "$layer/work"
  mount -t overlay overlay -o "lowerdir=$d,upperdir=$layer/upper,workdir=$layer/work" "$d"
done
exec "$@"
`;

export interface Sandbox {
  /** The command line that runs `argv` inside a fresh sandbox (same pid: unshare and sh exec). */
  command(argv: readonly string[]): string[];
  /** Environment additions: the stubs first on the PATH. */
  readonly env: Record<string, string>;
}

/** Writes the sandbox's script, stubs and sysctl copy directory under `dir` (one per process). */
export function createSandbox(dir: string): Sandbox {
  const stubs = join(dir, "stub");
  mkdirSync(join(dir, "sysctl"), { recursive: true });
  mkdirSync(stubs, { recursive: true });
  writeFileSync(join(stubs, "iptables"), STUB);
  chmodSync(join(stubs, "iptables"), 0o755);
  for (const tool of NETFILTER_TOOLS.filter((t) => t !== "iptables")) symlinkSync("iptables", join(stubs, tool));
  const script = join(dir, "sandbox.sh");
  writeFileSync(script, SCRIPT);
  return {
    command: (argv) => ["unshare", "--mount", "--propagation", "private", "sh", script, dir, ...argv],
    env: { PATH: `${stubs}:${process.env.PATH ?? "/usr/sbin:/usr/bin:/sbin:/bin"}` },
  };
}
