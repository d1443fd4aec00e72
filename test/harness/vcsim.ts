/**
 * vcsim, VMware's vCenter simulator (govmomi's `simulator` and `vapi/simulator` packages, pinned in
 * `vcsim/go.mod`), for the vSphere provider's tests. The small Go main in `vcsim/` is built from the Go
 * module proxy once and cached like kube-apiserver, keyed by a hash of its sources. Each `startVcsim` is a
 * fresh simulator: an inventory of VMs with guest info, served over TLS behind a front that counts calls
 * and can play "unreachable", and a control endpoint for power, destroy and session expiry.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cacheRoot, goBuild } from "../../scripts/control-plane/binaries.ts";
import { track } from "./processes.ts";

const MODULE_DIR = join(import.meta.dir, "vcsim");

export interface VcsimVm {
  readonly name: string;
  /** BIOS UUID, lower-case (what the providerID carries). */
  readonly uuid: string;
  readonly instanceUuid: string;
  readonly ref: string;
  readonly host: string;
  readonly cluster: string;
  readonly datacenter: string;
  /** The VM's parent folder. */
  readonly folder: string;
  readonly resourcePool: string;
  readonly hostName: string;
  readonly ip: string;
  readonly externalIp: string;
  readonly numCpu: number;
  readonly memoryMB: number;
}

export interface VcsimOptions {
  readonly datacenters?: number;
  readonly clusters?: number;
  readonly hosts?: number;
  /** VMs per cluster. */
  readonly vms?: number;
}

export interface Vcsim {
  /** `https://127.0.0.1:<port>/sdk`. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** PEM of the CA that signed the simulator's certificate. */
  readonly caFile: string;
  readonly username: string;
  readonly password: string;
  readonly vms: readonly VcsimVm[];
  powerOff(uuid: string): Promise<void>;
  powerOn(uuid: string): Promise<void>;
  destroy(uuid: string): Promise<void>;
  /** Sets one extraConfig key of the VM (ReconfigVM_Task), as CAPV sets `guestinfo.metadata`. */
  setExtraConfig(uuid: string, key: string, value: string): Promise<void>;
  /** Terminates every SOAP session, as a vCenter restart or idle timeout does. */
  expireSessions(): Promise<void>;
  /** While down, every connection to the API is closed at once. */
  setDown(down: boolean): Promise<void>;
  /** Requests served since the last reset, by SOAP method (`soap RetrievePropertiesEx`) or REST path. */
  calls(): Promise<Record<string, number>>;
  resetCalls(): Promise<void>;
  /** Creates (or reuses) a tag category and a tag in it, and attaches the tag to the object. */
  tag(object: { type: string; id: string }, category: string, tag: string): Promise<void>;
  stop(): Promise<void>;
}

function sourceHash(): string {
  const hash = createHash("sha256");
  for (const file of readdirSync(MODULE_DIR)
    .filter((f) => /\.(go|mod|sum)$/.test(f))
    .sort())
    hash.update(file).update(readFileSync(join(MODULE_DIR, file)));
  return hash.digest("hex").slice(0, 12);
}

export function ensureVcsim(log: (line: string) => void = (l) => console.error(`[vcsim] ${l}`)): Promise<string> {
  const dir = join(cacheRoot(), `vcsim-govmomi-v0.55.1-${sourceHash()}`);
  return goBuild(log, dir, { module: "vcsim", moduleDir: MODULE_DIR, pkg: ".", output: "vcsim", ldflags: "-s -w" });
}

async function readLine(stream: ReadableStream<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  for await (const chunk of stream) {
    text += decoder.decode(chunk, { stream: true });
    const nl = text.indexOf("\n");
    if (nl >= 0) return text.slice(0, nl);
  }
  throw new Error(`vcsim exited before it served: ${text}`);
}

export async function startVcsim(options: VcsimOptions = {}): Promise<Vcsim> {
  const binary = await ensureVcsim();
  const dir = mkdtempSync(join(tmpdir(), "vcsim-"));
  const args = [
    `-datacenters=${options.datacenters ?? 1}`,
    `-clusters=${options.clusters ?? 1}`,
    `-hosts=${options.hosts ?? 2}`,
    `-vms=${options.vms ?? 4}`,
    `-dir=${dir}`,
  ];
  const proc = track(Bun.spawn([binary, ...args], { stdout: "pipe", stderr: "ignore" }));
  const ready = JSON.parse(await readLine(proc.stdout)) as Omit<Vcsim, "host" | "port"> & { control: string };
  const url = new URL(ready.url);
  const control = async (path: string, method = "POST"): Promise<string> => {
    const res = await fetch(`${ready.control}${path}`, { method });
    const body = await res.text();
    if (!res.ok) throw new Error(`vcsim control ${path}: HTTP ${res.status} ${body}`);
    return body;
  };
  const rest = restClient(ready.url.replace(/\/sdk$/, ""), ready.caFile, ready.username, ready.password);
  return {
    ...ready,
    host: url.hostname,
    port: Number(url.port),
    powerOff: async (uuid) => void (await control(`/power?state=off&uuid=${uuid}`)),
    powerOn: async (uuid) => void (await control(`/power?state=on&uuid=${uuid}`)),
    destroy: async (uuid) => void (await control(`/destroy?uuid=${uuid}`)),
    setExtraConfig: async (uuid, key, value) =>
      void (await control(`/extra-config?${new URLSearchParams({ uuid, key, value }).toString()}`)),
    expireSessions: async () => void (await control("/expire-sessions")),
    setDown: async (down) => void (await control(`/down?on=${down}`)),
    calls: async () => JSON.parse(await control("/calls", "GET")) as Record<string, number>,
    resetCalls: async () => void (await control("/calls/reset")),
    tag: (object, category, tag) => rest.tag(object, category, tag),
    async stop() {
      proc.kill("SIGTERM");
      await proc.exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The tagging REST API, as an administrator tags inventory objects. */
function restClient(base: string, caFile: string, username: string, password: string): Pick<Vcsim, "tag"> {
  const tls = { ca: readFileSync(caFile, "utf8") };
  let token: string | undefined;
  const call = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    token ??= (
      (await (
        await fetch(`${base}/rest/com/vmware/cis/session`, {
          method: "POST",
          headers: { authorization: `Basic ${btoa(`${username}:${password}`)}` },
          tls,
        } as RequestInit)
      ).json()) as { value: string }
    ).value;
    const res = await fetch(`${base}/rest${path}`, {
      method,
      headers: { "vmware-api-session-id": token, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      tls,
    } as RequestInit);
    if (!res.ok) throw new Error(`vcsim REST ${method} ${path}: HTTP ${res.status} ${await res.text()}`);
    return res.status === 200 ? ((await res.json()) as { value?: unknown } | null)?.value : undefined;
  };
  const categories = new Map<string, string>();
  const tags = new Map<string, string>();
  return {
    async tag(object, category, tag) {
      let categoryId = categories.get(category);
      if (!categoryId) {
        const spec = { create_spec: { name: category, description: "", cardinality: "SINGLE", associable_types: [] } };
        categoryId = (await call("POST", "/com/vmware/cis/tagging/category", spec)) as string;
        categories.set(category, categoryId);
      }
      const key = `${category}/${tag}`;
      let tagId = tags.get(key);
      if (!tagId) {
        tagId = (await call("POST", "/com/vmware/cis/tagging/tag", {
          create_spec: { name: tag, description: "", category_id: categoryId },
        })) as string;
        tags.set(key, tagId);
      }
      await call("POST", `/com/vmware/cis/tagging/tag-association/id:${tagId}?~action=attach`, { object_id: object });
    },
  };
}
