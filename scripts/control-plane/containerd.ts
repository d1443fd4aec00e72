/**
 * One containerd (Debian's package: containerd, runc, containernetworking-plugins) for local kubelets: CRI
 * on, its own root, state and socket under `stateDir`, cgroupfs (no systemd), a bridge CNI config that no
 * pod ever uses (there is no scheduler: the config only lets the runtime report its network ready). It runs
 * in a node sandbox (node-sandbox.ts) and serves no TCP port but the CRI streaming server on loopback.
 */
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { createSandbox } from "./node-sandbox.ts";
import { terminate } from "./control-plane.ts";

const CNI_BIN_DIRS = ["/usr/lib/cni", "/opt/cni/bin"];

/** Where the CNI plugins are installed (Debian: /usr/lib/cni), if anywhere. */
export function cniBinDir(): string | undefined {
  return CNI_BIN_DIRS.find((dir) => existsSync(join(dir, "bridge")) && existsSync(join(dir, "host-local")));
}

export interface Containerd {
  /** The CRI endpoint for kubelet's `containerRuntimeEndpoint`. */
  readonly endpoint: string;
  readonly proc: Subprocess;
  readonly logFile: string;
  stop(): Promise<void>;
}

export interface ContainerdOptions {
  /** Root, state, socket and configuration; keep the path short (unix socket paths are limited). */
  readonly stateDir: string;
  readonly logFile: string;
  /** Called with the process as soon as it is spawned (tests track it). */
  readonly onSpawn?: (proc: Subprocess) => void;
}

export async function startContainerd(options: ContainerdOptions): Promise<Containerd> {
  const dir = options.stateDir;
  const socket = join(dir, "containerd.sock");
  const config = writeConfig(dir, socket);
  const sandbox = createSandbox(join(dir, "sandbox"));
  const out = openSync(options.logFile, "a");
  const proc = Bun.spawn(sandbox.command(["containerd", "--config", config]), {
    env: { ...process.env, ...sandbox.env },
    stdout: out,
    stderr: out,
  });
  closeSync(out);
  options.onSpawn?.(proc);
  try {
    await waitForCri(socket, proc, options.logFile);
  } catch (error) {
    await terminate(proc, 2000);
    throw error;
  }
  return { endpoint: `unix://${socket}`, proc, logFile: options.logFile, stop: () => terminate(proc) };
}

function writeConfig(dir: string, socket: string): string {
  const cniConf = join(dir, "cni");
  mkdirSync(cniConf, { recursive: true });
  const network = {
    cniVersion: "0.4.0",
    name: "local-kubelets",
    plugins: [
      {
        type: "bridge",
        bridge: "cni-kubelets0",
        isGateway: false,
        ipMasq: false,
        ipam: { type: "host-local", ranges: [[{ subnet: "10.88.0.0/16" }]], dataDir: join(dir, "ipam") },
      },
    ],
  };
  writeFileSync(join(cniConf, "10-local-kubelets.conflist"), JSON.stringify(network, null, 2));
  const cri = 'plugins."io.containerd.grpc.v1.cri"';
  const lines = [
    "version = 2",
    `root = ${JSON.stringify(join(dir, "root"))}`,
    `state = ${JSON.stringify(join(dir, "state"))}`,
    // Plugins that would write outside `root` (opt: /opt/containerd) or are of no use here.
    'disabled_plugins = ["io.containerd.internal.v1.opt", "io.containerd.snapshotter.v1.aufs",',
    '  "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.zfs",',
    '  "io.containerd.tracing.processor.v1.otlp", "io.containerd.internal.v1.tracing"]',
    "[grpc]",
    `  address = ${JSON.stringify(socket)}`,
    "[ttrpc]",
    `  address = ${JSON.stringify(`${socket}.ttrpc`)}`,
    `[${cri}]`,
    '  stream_server_address = "127.0.0.1"',
    '  stream_server_port = "0"',
    `[${cri}.containerd]`,
    '  snapshotter = "native"',
    '  default_runtime_name = "runc"',
    `[${cri}.containerd.runtimes.runc]`,
    '  runtime_type = "io.containerd.runc.v2"',
    `[${cri}.containerd.runtimes.runc.options]`,
    "  SystemdCgroup = false",
    `[${cri}.cni]`,
    `  bin_dir = ${JSON.stringify(cniBinDir() ?? CNI_BIN_DIRS[0])}`,
    `  conf_dir = ${JSON.stringify(cniConf)}`,
  ];
  const path = join(dir, "containerd.toml");
  writeFileSync(path, `${lines.join("\n")}\n`);
  return path;
}

/** Ready once `ctr version` gets an answer over the socket. */
async function waitForCri(socket: string, proc: Subprocess, logFile: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`containerd exited with status ${proc.exitCode}:\n${tail(logFile)}`);
    if (existsSync(socket)) {
      const ctr = Bun.spawnSync(["ctr", "--address", socket, "version"], { stdout: "ignore", stderr: "ignore" });
      if (ctr.exitCode === 0) return;
    }
    await Bun.sleep(100);
  }
  throw new Error(`containerd did not serve on ${socket} within 30 s:\n${tail(logFile)}`);
}

/** The last lines of a log file, for error messages. */
export function tail(file: string, lines = 15): string {
  if (!existsSync(file)) return "(no log)";
  return readFileSync(file, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
}
