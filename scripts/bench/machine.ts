/** The machine and the versions a result was measured with, for the results file's header. */
import { readFileSync } from "node:fs";
import { availableParallelism, totalmem } from "node:os";
import { ETCD_VERSION, KUBERNETES_VERSION } from "../control-plane/binaries.ts";
import { KWOK_VERSION } from "./kwok.ts";

export interface MachineDescription {
  readonly date: string;
  readonly nproc: number;
  readonly memoryGiB: number;
  readonly cpu: string;
  readonly os: string;
  readonly kernel: string;
  readonly bun: string;
  readonly go: string;
  readonly kubernetes: string;
  readonly etcd: string;
  readonly kwok?: string;
  readonly cloudProviderModule: string;
  readonly ccm: string;
}

function firstMatch(path: string, pattern: RegExp): string {
  try {
    return pattern.exec(readFileSync(path, "utf8"))?.[1]?.trim() ?? "unknown";
  } catch {
    return "unknown";
  }
}

async function output(argv: string[]): Promise<string> {
  try {
    const proc = Bun.spawn(argv, { stdout: "pipe", stderr: "ignore" });
    const text = await new Response(proc.stdout).text();
    await proc.exited;
    return text.trim();
  } catch {
    return "unknown";
  }
}

/** k8s.io/cloud-provider's version in the Go reference's go.mod (beside this file, or in the bundle). */
function cloudProviderModule(): string {
  try {
    const goMod = readFileSync(new URL("go/ref-ccm/go.mod", import.meta.url), "utf8");
    return /k8s\.io\/cloud-provider (v\S+)/.exec(goMod)?.[1] ?? "unknown";
  } catch {
    return "unknown";
  }
}

/** The machine, and the versions of what runs: `ours` is the measured binary (it reports its commit). */
export async function describeMachine(ours: string): Promise<MachineDescription> {
  const version = await output([ours, "--version"]);
  return {
    date: new Date().toISOString(),
    nproc: availableParallelism(),
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    cpu: firstMatch("/proc/cpuinfo", /^model name\s*:\s*(.+)$/m),
    os: firstMatch("/etc/os-release", /^PRETTY_NAME="?([^"\n]+)"?$/m),
    kernel: (await output(["uname", "-r"])) || "unknown",
    bun: Bun.version,
    go: (await output(["go", "env", "GOVERSION"])) || "unknown",
    kubernetes: KUBERNETES_VERSION,
    etcd: ETCD_VERSION,
    kwok: KWOK_VERSION,
    cloudProviderModule: cloudProviderModule(),
    ccm: version.replace(/^cloud-controller-manager /, "") || "unknown",
  };
}
