/**
 * Real kubelets (`--cloud-provider=external`) against a local control plane: one containerd, N kubelets
 * with distinct node names, root directories and ports, each with a node client certificate
 * (`O=system:nodes, CN=system:node:<name>`, so the Node authorizer applies) and each in its own node
 * sandbox. The KubeletConfiguration fits a shared host: cgroup v1 allowed, no per-QoS cgroups, no node
 * allocatable enforcement, no eviction, no iptables chains, serving on loopback only.
 */
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { startContainerd, tail, type Containerd } from "./containerd.ts";
import { terminate } from "./control-plane.ts";
import { createSandbox } from "./node-sandbox.ts";
import type { Pki } from "./pki.ts";
import { freePort } from "./ports.ts";

export interface KubeletCluster {
  readonly server: string;
  readonly caFile: string;
  readonly pki: Pki;
  /** Logs go to `<dir>/nodes/`, beside the control plane's. */
  readonly dir: string;
}

export interface KubeletSpec {
  readonly name: string;
  /** `--node-ip`: none, one address, or an IPv4 and an IPv6 address (dual-stack). */
  readonly nodeIPs?: readonly string[];
  /** KubeletConfiguration fields on top of the defaults here. */
  readonly config?: Readonly<Record<string, unknown>>;
}

export interface Kubelet {
  readonly name: string;
  readonly logFile: string;
  /** The running process, if any. */
  proc(): Subprocess | undefined;
  start(): Promise<void>;
  /** SIGTERM (SIGKILL after 10 s). */
  stop(): Promise<void>;
}

export interface KubeletHost {
  readonly containerd: Containerd;
  /** Writes the node's files and starts its kubelet; resolves once kubelet answers /healthz. */
  addKubelet(spec: KubeletSpec): Promise<Kubelet>;
  /** Stops every kubelet, then containerd, and removes their state. */
  stop(): Promise<void>;
}

export interface KubeletHostOptions {
  readonly cluster: KubeletCluster;
  readonly binary: string;
  /** Called with every process as soon as it is spawned (tests track them). */
  readonly onSpawn?: (proc: Subprocess) => void;
}

export async function startKubeletHost(options: KubeletHostOptions): Promise<KubeletHost> {
  // Sockets live under the state directory: keep it short (unix socket paths are limited to 107 bytes).
  const stateDir = mkdtempSync(join(tmpdir(), "ccm-nodes-"));
  const logDir = join(options.cluster.dir, "nodes");
  mkdirSync(logDir, { recursive: true });
  let containerd: Containerd;
  try {
    containerd = await startContainerd({
      stateDir: join(stateDir, "containerd"),
      logFile: join(logDir, "containerd.log"),
      onSpawn: options.onSpawn,
    });
  } catch (error) {
    rmSync(stateDir, { recursive: true, force: true });
    throw error;
  }
  const kubelets: Kubelet[] = [];
  const context = { ...options, endpoint: containerd.endpoint, stateDir, logDir };
  return {
    containerd,
    async addKubelet(spec) {
      const kubelet = await createKubelet(context, spec);
      kubelets.push(kubelet);
      await kubelet.start();
      return kubelet;
    },
    async stop() {
      try {
        await Promise.all(kubelets.map((k) => k.stop()));
        await containerd.stop();
      } finally {
        rmSync(stateDir, { recursive: true, force: true });
      }
    },
  };
}

interface KubeletContext extends KubeletHostOptions {
  readonly endpoint: string;
  readonly stateDir: string;
  readonly logDir: string;
}

async function createKubelet(context: KubeletContext, spec: KubeletSpec): Promise<Kubelet> {
  const root = join(context.stateDir, spec.name);
  mkdirSync(root, { recursive: true });
  const ports = { server: await freePort(), healthz: await freePort() };
  const args = [
    context.binary,
    `--config=${writeConfig(context, root, ports, spec.config)}`,
    `--kubeconfig=${writeKubeconfig(context, root, spec.name)}`,
    `--root-dir=${join(root, "root")}`,
    `--cert-dir=${join(root, "pki")}`,
    `--hostname-override=${spec.name}`,
    "--cloud-provider=external",
    "--v=1",
    ...(spec.nodeIPs?.length ? [`--node-ip=${spec.nodeIPs.join(",")}`] : []),
  ];
  const sandboxDir = join(root, "sandbox");
  const logFile = join(context.logDir, `kubelet-${spec.name}.log`);
  let proc: Subprocess | undefined;
  return {
    name: spec.name,
    logFile,
    proc: () => proc,
    async start() {
      if (proc && proc.exitCode === null) return;
      rmSync(sandboxDir, { recursive: true, force: true });
      const sandbox = createSandbox(sandboxDir);
      const out = openSync(logFile, "a");
      proc = Bun.spawn(sandbox.command(args), { env: { ...process.env, ...sandbox.env }, stdout: out, stderr: out });
      closeSync(out);
      context.onSpawn?.(proc);
      await waitForHealthz(spec.name, ports.healthz, proc, logFile);
    },
    async stop() {
      if (proc) await terminate(proc);
    },
  };
}

function writeConfig(
  context: KubeletContext,
  root: string,
  ports: { server: number; healthz: number },
  extra: KubeletSpec["config"],
): string {
  const config = {
    apiVersion: "kubelet.config.k8s.io/v1beta1",
    kind: "KubeletConfiguration",
    address: "127.0.0.1",
    port: ports.server,
    readOnlyPort: 0,
    healthzBindAddress: "127.0.0.1",
    healthzPort: ports.healthz,
    authentication: {
      anonymous: { enabled: false },
      webhook: { enabled: false },
      x509: { clientCAFile: context.cluster.caFile },
    },
    authorization: { mode: "AlwaysAllow" },
    containerRuntimeEndpoint: context.endpoint,
    cgroupDriver: "cgroupfs",
    failCgroupV1: false,
    cgroupsPerQOS: false,
    enforceNodeAllocatable: [],
    makeIPTablesUtilChains: false,
    evictionHard: {},
    failSwapOn: false,
    ...extra,
  };
  const path = join(root, "kubelet-config.json");
  writeFileSync(path, JSON.stringify(config, null, 2));
  return path;
}

function writeKubeconfig(context: KubeletContext, root: string, name: string): string {
  const client = context.cluster.pki.issueClient(`kubelet-${name}`, `system:node:${name}`, ["system:nodes"]);
  const config = {
    apiVersion: "v1",
    kind: "Config",
    clusters: [
      { name: "local", cluster: { server: context.cluster.server, "certificate-authority": context.cluster.caFile } },
    ],
    users: [{ name, user: { "client-certificate": client.certFile, "client-key": client.keyFile } }],
    contexts: [{ name, context: { cluster: "local", user: name } }],
    "current-context": name,
  };
  const path = join(root, "kubeconfig");
  writeFileSync(path, JSON.stringify(config, null, 2));
  return path;
}

async function waitForHealthz(name: string, port: number, proc: Subprocess, logFile: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null)
      throw new Error(`kubelet ${name} exited with status ${proc.exitCode}:\n${tail(logFile)}`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(1000) })).ok) return;
    } catch {
      // not listening yet
    }
    await Bun.sleep(200);
  }
  throw new Error(`kubelet ${name} did not answer /healthz within 60 s:\n${tail(logFile)}`);
}
