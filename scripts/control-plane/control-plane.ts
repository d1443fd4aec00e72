/**
 * A real etcd + kube-apiserver on loopback with free ports, generated PKI, `--authorization-mode=Node,RBAC`,
 * an admin identity (system:masters) and a restricted `system:cloud-controller-manager` identity bound only
 * to the project's own RBAC (src/manifests/rbac.ts), by client certificate and by bearer token.
 */
import { mkdirSync, writeFileSync, readFileSync, rmSync, openSync, closeSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { ensureKubeBinaries, type KubeBinaries } from "./binaries.ts";
import { writePki, type Pki } from "./pki.ts";
import { freePort } from "./ports.ts";
import { CCM_USER, rbacManifests } from "../../src/manifests/rbac.ts";
import { createRegistry } from "../../src/cloud/registry.ts";
import { providerFactories } from "../../src/builtins.ts";
import { createAdminApi, applyObjects } from "./admin.ts";
import type { KubeApi } from "../../src/kube/api.ts";
import type { KubeObject } from "../../src/kube/objects.ts";

export interface Kubeconfigs {
  /** system:masters, for test setup and assertions. */
  readonly admin: string;
  /** The restricted CCM identity by client certificate. */
  readonly ccm: string;
  /** The same restricted identity by bearer token. */
  readonly ccmToken: string;
}

export interface ControlPlane {
  readonly dir: string;
  readonly server: string;
  readonly caFile: string;
  readonly kubeconfigs: Kubeconfigs;
  readonly admin: KubeApi;
  readonly pki: Pki;
  /**
   * Metadata-level audit log of writes to nodes, services, events and leases, and of lists and watches of
   * nodes and services (JSON lines).
   */
  readonly auditLog: string;
  /** Stops kube-apiserver only (etcd keeps the data); `startApiServer` brings it back on the same port. */
  stopApiServer(): Promise<void>;
  startApiServer(): Promise<void>;
  stop(): Promise<void>;
}

export interface StartOptions {
  readonly dir: string;
  readonly log?: (line: string) => void;
  /** Extra kube-apiserver flags (benchmarks raise the in-flight limits). */
  readonly apiserverArgs?: readonly string[];
  /** Audit policy rules in place of the default (writes to nodes, services, events, leases by anyone). */
  readonly auditRules?: readonly object[];
}

const CCM_TOKEN = "ccm-test-token";
const ADMIN = "harness-admin";

export async function startControlPlane(options: StartOptions): Promise<ControlPlane> {
  const log = options.log ?? ((line: string) => console.error(line));
  const binaries = await ensureKubeBinaries(log);
  mkdirSync(options.dir, { recursive: true });
  const pki = writePki(join(options.dir, "pki"), { admin: ADMIN, ccm: CCM_USER });
  writeFileSync(join(options.dir, "tokens.csv"), `${CCM_TOKEN},${CCM_USER},ccm-uid\n`);
  const ports = { etcd: await freePort(), peer: await freePort(), apiserver: await freePort() };
  const server = `https://127.0.0.1:${ports.apiserver}`;
  const etcd = startEtcd(binaries, options.dir, ports);
  await waitFor(`etcd on ${ports.etcd}`, () => httpOk(`http://127.0.0.1:${ports.etcd}/health`), 30_000, etcd);
  const kubeconfigs = writeKubeconfigs(options.dir, server, pki);
  const admin = await createAdminApi(kubeconfigs.admin);
  let apiserver = startApiServer(binaries, options, ports, pki);
  const ready = async (): Promise<void> =>
    waitFor(`kube-apiserver on ${ports.apiserver}`, () => readyz(server, pki), 120_000, apiserver);
  await ready();
  // Every provider's extra role too: one control plane serves the tests of all providers.
  const registry = createRegistry(providerFactories());
  await applyObjects(
    admin,
    rbacManifests({
      namespace: "kube-system",
      leaseName: "cloud-controller-manager",
      providerRules: registry.rbacRules(),
    }),
  );
  // Every provider's custom resources, served before any test starts.
  await applyObjects(admin, registry.customResources());
  await waitFor("custom resources served", () => crdsServed(admin, registry.customResources()), 30_000, apiserver);
  return {
    dir: options.dir,
    server,
    caFile: pki.caFile,
    kubeconfigs,
    admin,
    pki,
    auditLog: join(options.dir, "audit.log"),
    async stopApiServer() {
      await terminate(apiserver);
    },
    async startApiServer() {
      apiserver = startApiServer(binaries, options, ports, pki);
      await ready();
    },
    async stop() {
      await terminate(apiserver);
      await terminate(etcd);
    },
  };
}

function logFile(dir: string, name: string): number {
  return openSync(join(dir, `${name}.log`), "a");
}

function startEtcd(binaries: KubeBinaries, dir: string, ports: { etcd: number; peer: number }): Subprocess {
  const data = join(dir, "etcd-data");
  rmSync(data, { recursive: true, force: true });
  const client = `http://127.0.0.1:${ports.etcd}`;
  const peer = `http://127.0.0.1:${ports.peer}`;
  const out = logFile(dir, "etcd");
  const proc = Bun.spawn(
    [
      binaries.etcd,
      "--name=default",
      `--data-dir=${data}`,
      `--listen-client-urls=${client}`,
      `--advertise-client-urls=${client}`,
      `--listen-peer-urls=${peer}`,
      `--initial-advertise-peer-urls=${peer}`,
      `--initial-cluster=default=${peer}`,
      "--unsafe-no-fsync=true",
      "--quota-backend-bytes=8589934592",
      "--log-level=warn",
    ],
    { stdout: out, stderr: out },
  );
  closeSync(out);
  return proc;
}

function startApiServer(
  binaries: KubeBinaries,
  options: StartOptions,
  ports: { etcd: number; apiserver: number },
  pki: Pki,
): Subprocess {
  const out = logFile(options.dir, "kube-apiserver");
  const args = [
    binaries.kubeApiserver,
    "--advertise-address=127.0.0.1",
    "--bind-address=127.0.0.1",
    `--secure-port=${ports.apiserver}`,
    `--etcd-servers=http://127.0.0.1:${ports.etcd}`,
    `--tls-cert-file=${pki.servingCertFile}`,
    `--tls-private-key-file=${pki.servingKeyFile}`,
    `--cert-dir=${join(options.dir, "pki")}`,
    `--client-ca-file=${pki.caFile}`,
    `--token-auth-file=${join(options.dir, "tokens.csv")}`,
    `--service-account-issuer=https://127.0.0.1:${ports.apiserver}`,
    `--service-account-key-file=${pki.saPublicKeyFile}`,
    `--service-account-signing-key-file=${pki.saPrivateKeyFile}`,
    "--service-cluster-ip-range=10.96.0.0/16,fd00:10:96::/112",
    "--authorization-mode=Node,RBAC",
    "--allow-privileged=true",
    "--disable-admission-plugins=ServiceAccount,TaintNodesByCondition",
    "--profiling=false",
    `--audit-policy-file=${writeAuditPolicy(options.dir, options.auditRules)}`,
    `--audit-log-path=${join(options.dir, "audit.log")}`,
    "--audit-log-maxsize=200",
    ...(options.apiserverArgs ?? []),
  ];
  const proc = Bun.spawn(args, { stdout: out, stderr: out });
  closeSync(out);
  return proc;
}

/**
 * Who wrote what: tests check which identity (e.g. a per-controller ServiceAccount) made each write, and
 * how many lists and watches of the cached resources a manager opened.
 */
function writeAuditPolicy(dir: string, rules?: readonly object[]): string {
  const path = join(dir, "audit-policy.json");
  const policy = {
    apiVersion: "audit.k8s.io/v1",
    kind: "Policy",
    omitStages: ["RequestReceived"],
    rules: rules ?? [
      {
        level: "Metadata",
        verbs: ["create", "update", "patch", "delete"],
        resources: [
          {
            group: "",
            resources: [
              "nodes",
              "nodes/status",
              "services",
              "services/status",
              "events",
              "serviceaccounts",
              "serviceaccounts/token",
            ],
          },
          { group: "coordination.k8s.io", resources: ["leases"] },
        ],
      },
      { level: "Metadata", verbs: ["list", "watch"], resources: [{ group: "", resources: ["nodes", "services"] }] },
      { level: "None" },
    ],
  };
  writeFileSync(path, JSON.stringify(policy));
  return path;
}

function writeKubeconfigs(dir: string, server: string, pki: Pki): Kubeconfigs {
  const write = (name: string, user: Record<string, string>): string => {
    const path = join(dir, `${name}.kubeconfig`);
    const config = {
      apiVersion: "v1",
      kind: "Config",
      clusters: [{ name: "harness", cluster: { server, "certificate-authority": pki.caFile } }],
      users: [{ name, user }],
      contexts: [{ name, context: { cluster: "harness", user: name } }],
      "current-context": name,
    };
    writeFileSync(path, JSON.stringify(config, null, 2));
    return path;
  };
  return {
    admin: write("admin", {
      "client-certificate": pki.clients.admin.certFile,
      "client-key": pki.clients.admin.keyFile,
    }),
    ccm: write("ccm", { "client-certificate": pki.clients.ccm.certFile, "client-key": pki.clients.ccm.keyFile }),
    ccmToken: write("ccm-token", { token: CCM_TOKEN }),
  };
}

async function httpOk(url: string): Promise<boolean> {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(2000) })).ok;
  } catch {
    return false;
  }
}

/**
 * `/readyz` as admin: ready only once every post-start hook has finished (RBAC bootstrap roles such as
 * system:basic-user, the system priority classes), not merely when the first request is answered.
 */
async function readyz(server: string, pki: Pki): Promise<boolean> {
  try {
    const tls = {
      ca: readFileSync(pki.caFile, "utf8"),
      cert: readFileSync(pki.clients.admin.certFile, "utf8"),
      key: readFileSync(pki.clients.admin.keyFile, "utf8"),
    };
    return (await fetch(`${server}/readyz`, { tls, signal: AbortSignal.timeout(2000) })).ok;
  } catch {
    return false;
  }
}

/** Every custom resource answers a list: its CRD is established and served. */
async function crdsServed(admin: KubeApi, crds: readonly KubeObject[]): Promise<boolean> {
  for (const crd of crds) {
    const spec = (
      crd as { spec?: { group: string; names: { plural: string; kind: string }; versions: { name: string }[] } }
    ).spec;
    if (!spec) continue;
    const resource = {
      group: spec.group,
      version: spec.versions[0]?.name ?? "v1",
      plural: spec.names.plural,
      kind: spec.names.kind,
      namespaced: false,
    };
    if (
      !(await admin.list(resource, { limit: 1 }).then(
        () => true,
        () => false,
      ))
    )
      return false;
  }
  return true;
}

async function waitFor(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs: number,
  proc: Subprocess,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null)
      throw new Error(`${what} exited with status ${proc.exitCode} before it was ready (see its log)`);
    if (await check()) return;
    await Bun.sleep(250);
  }
  throw new Error(`${what} was not ready within ${timeoutMs / 1000} s`);
}

/** SIGTERM, then SIGKILL if the process has not exited within `graceMs`. */
export async function terminate(proc: Subprocess, graceMs = 10_000): Promise<void> {
  if (proc.exitCode !== null) return;
  proc.kill("SIGTERM");
  const exited = await Promise.race([proc.exited.then(() => true), Bun.sleep(graceMs).then(() => false)]);
  if (!exited) {
    proc.kill("SIGKILL");
    await proc.exited;
  }
}
