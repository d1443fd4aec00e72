/**
 * The only code that talks to vCenter: the SOAP API (vim25, `/sdk`) for the inventory and the REST API
 * (`/rest/com/vmware/cis/...`, present from vCenter 6.5 to 8) for tags. Sessions are kept and logged in
 * again once when vCenter says a session is gone (NotAuthenticated, HTTP 401), so a vCenter restart or
 * an idle timeout costs one extra round trip, never a failed sync. Every call reports to `observeCall`.
 */
import { readFileSync } from "node:fs";
import { isIP } from "node:net";
import { connect, type TLSSocket } from "node:tls";
import type { CallOutcome } from "../../src/cloud/provider.ts";
import {
  ancestrySpec,
  datacentersSpec,
  readDatacenters,
  readParents,
  readVmDetails,
  readVmSummaries,
  vmDetailsSpec,
  vmScanSpec,
} from "./queries.ts";
import type { DatacenterEntry, EntityParent, VmDetails, VmSummary } from "./queries.ts";
import {
  envelope,
  readResponse,
  readRetrieveResult,
  SoapFault,
  moRefOf,
  textOf,
  type MoRef,
  type ObjectContent,
  type RetrieveResult,
  type XmlNode,
} from "./soap-xml.ts";
import { pinnedTls, pinnedWithCa, type PinnedTls } from "./thumbprint.ts";
import type { VCenterSettings } from "./vcenter-config.ts";

export interface Login {
  readonly username: string;
  readonly password: string;
}

export interface VSphereApiDeps {
  readonly vcenter: VCenterSettings;
  /** The credentials, resolved when first needed (a Secret may not be readable before initialize). */
  readonly login: () => Promise<Login>;
  readonly observeCall: (operation: string, seconds: number, outcome: CallOutcome) => void;
  /** Per round trip; vCenter answers in milliseconds when healthy. */
  readonly timeoutMs?: number;
  /** Objects per property-collector page (`maxObjects`); longer answers continue with a token. */
  readonly pageSize?: number;
}

/** A tag as the zone and region lookup needs it. */
export interface TagInfo {
  readonly name: string;
  readonly categoryId: string;
}

/** The inventory questions the provider asks; each is one round trip (plus pages of a long answer). */
export interface VSphereApi {
  /** Every datacenter of the vCenter, with its inventory path. */
  datacenters(signal?: AbortSignal): Promise<DatacenterEntry[]>;
  /** Every VM under the given datacenters, with what finds a node's VM. */
  listVirtualMachines(datacenters: readonly MoRef[], signal?: AbortSignal): Promise<VmSummary[]>;
  /** Details of the given VMs; a VM gone meanwhile is absent from the answer. */
  describeVirtualMachines(vms: readonly MoRef[], signal?: AbortSignal): Promise<VmDetails[]>;
  /** The given entities and all their ancestors. */
  ancestry(entities: readonly MoRef[], signal?: AbortSignal): Promise<EntityParent[]>;
  /** Tag ids attached to each object (REST), keyed by `refKey`. */
  attachedTags(objects: readonly MoRef[], signal?: AbortSignal): Promise<Map<string, string[]>>;
  tag(id: string, signal?: AbortSignal): Promise<TagInfo>;
  categoryName(id: string, signal?: AbortSignal): Promise<string>;
  /** The ServiceContent of the current session (logging in first when needed). */
  serviceContent(signal?: AbortSignal): Promise<ServiceContent>;
  close(): Promise<void>;
}

export interface ServiceContent {
  readonly rootFolder: MoRef;
  readonly propertyCollector: MoRef;
  readonly sessionManager: MoRef;
  readonly about: string;
}

const SERVICE_INSTANCE: MoRef = { type: "ServiceInstance", value: "ServiceInstance" };
const SOAP_ACTION = "urn:vim25/7.0.3.0";
const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_PAGE_SIZE = 1000;

const refOf = (node: unknown): MoRef => moRefOf(node) ?? { type: "", value: "" };

/** With a thumbprint and no caFile, the chain vCenter presents is probed (thumbprint.ts says why). */
function probePin(vc: VCenterSettings, timeoutMs: number): Promise<PinnedTls> {
  return new Promise((resolve, reject) => {
    const servername = isIP(vc.server) === 0 ? vc.server : undefined;
    const socket: TLSSocket = connect(vc.port, vc.server, { servername, rejectUnauthorized: false });
    socket.once("secureConnect", () => {
      const pin = pinnedTls(socket.getPeerCertificate(true), vc.thumbprint);
      socket.destroy();
      if (pin instanceof Error) reject(pin);
      else resolve(pin);
    });
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error("vCenter TLS: timed out")));
    socket.on("error", reject);
  });
}

/** The TLS settings no probe is needed for: insecure, or the CA file (pinned as well with a thumbprint). */
function fixedTls(vc: VCenterSettings): object | undefined {
  if (vc.insecure) return { rejectUnauthorized: false };
  const ca = vc.caFile ? readFileSync(vc.caFile, "utf8") : undefined;
  if (vc.thumbprint === "") return ca === undefined ? {} : { ca };
  return ca === undefined ? undefined : pinnedWithCa(ca, vc.thumbprint);
}

/** The TLS settings of every request: fixed, or pinned by a probe made once (again after a failure). */
function tlsSettings(
  vc: VCenterSettings,
  timeoutMs: number,
  timed: (run: () => Promise<PinnedTls>) => Promise<PinnedTls>,
): () => Promise<object> {
  const fixed = fixedTls(vc);
  let pinned: Promise<PinnedTls> | undefined;
  return () => {
    if (fixed) return Promise.resolve(fixed);
    pinned ??= timed(() => probePin(vc, timeoutMs)).catch((error: unknown) => {
      pinned = undefined;
      throw error;
    });
    return pinned;
  };
}

export function createVSphereApi(deps: VSphereApiDeps): VSphereApi {
  const vc = deps.vcenter;
  const host = vc.server.includes(":") && !vc.server.startsWith("[") ? `[${vc.server}]` : vc.server;
  const base = `https://${host}:${vc.port}`;
  const tlsFor = tlsSettings(vc, deps.timeoutMs ?? DEFAULT_TIMEOUT_MS, (run) => timed("TLSProbe", run));
  let soapSession: Promise<{ cookie: string; content: ServiceContent }> | undefined;
  let restSession: Promise<string> | undefined;

  async function timed<T>(operation: string, run: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      const result = await run();
      deps.observeCall(operation, (performance.now() - started) / 1000, "success");
      return result;
    } catch (error) {
      deps.observeCall(operation, (performance.now() - started) / 1000, "error");
      throw error;
    }
  }

  const signalFor = (signal?: AbortSignal): AbortSignal => {
    const timeout = AbortSignal.timeout(deps.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    return signal ? AbortSignal.any([signal, timeout]) : timeout;
  };

  interface Call {
    readonly method: string;
    readonly self: MoRef;
    readonly args: XmlNode;
    readonly cookie: string;
  }

  async function post(
    { method, self, args, cookie }: Call,
    signal?: AbortSignal,
  ): Promise<{ body: XmlNode; setCookie: string }> {
    const res = await fetch(`${base}/sdk`, {
      method: "POST",
      headers: { "content-type": "text/xml; charset=utf-8", soapaction: SOAP_ACTION, ...(cookie ? { cookie } : {}) },
      body: envelope(method, self, args),
      signal: signalFor(signal),
      tls: await tlsFor(),
    } as RequestInit);
    const text = await res.text();
    if (!res.ok && res.status !== 500) throw new Error(`vCenter ${method}: HTTP ${res.status}`);
    const setCookie = (res.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    return { body: readResponse(text, method), setCookie };
  }

  async function login(signal?: AbortSignal): Promise<{ cookie: string; content: ServiceContent }> {
    const sc = (
      await timed("RetrieveServiceContent", () =>
        post({ method: "RetrieveServiceContent", self: SERVICE_INSTANCE, args: {}, cookie: "" }, signal),
      )
    ).body;
    const rv = (sc.returnval as XmlNode[] | undefined)?.[0] ?? {};
    const about = (rv.about ?? {}) as XmlNode;
    const content: ServiceContent = {
      rootFolder: refOf(rv.rootFolder),
      propertyCollector: refOf(rv.propertyCollector),
      sessionManager: refOf(rv.sessionManager),
      about: textOf(about.fullName) || "vCenter",
    };
    const { username, password } = await deps.login();
    const answer = await timed("Login", () =>
      post(
        { method: "Login", self: content.sessionManager, args: { userName: username, password }, cookie: "" },
        signal,
      ),
    );
    if (answer.setCookie === "") throw new Error("vCenter accepted the login but set no session cookie");
    return { cookie: answer.setCookie, content };
  }

  function session(signal?: AbortSignal): Promise<{ cookie: string; content: ServiceContent }> {
    soapSession ??= login(signal).catch((error: unknown) => {
      soapSession = undefined;
      throw error;
    });
    return soapSession;
  }

  /**
   * One call in the current session; `check` may reject an answer (throwing) as a fault would. A
   * NotAuthenticated fault logs in again, once, and repeats the call; concurrent callers share that login.
   */
  async function soap<T>(call: Omit<Call, "cookie">, check: (body: XmlNode) => T, signal?: AbortSignal): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const current = session(signal);
      const { cookie } = await current;
      try {
        return check((await timed(call.method, () => post({ ...call, cookie }, signal))).body);
      } catch (error) {
        if (!(error instanceof SoapFault && error.fault === "NotAuthenticated") || attempt > 0) throw error;
        if (soapSession === current) soapSession = undefined;
      }
    }
  }

  async function restLogin(signal?: AbortSignal): Promise<string> {
    const { username, password } = await deps.login();
    const tls = await tlsFor();
    const res = await timed("rest:session", () =>
      fetch(`${base}/rest/com/vmware/cis/session`, {
        method: "POST",
        headers: { authorization: `Basic ${Buffer.from(`${username}:${password}`).toString("base64")}` },
        signal: signalFor(signal),
        tls,
      } as RequestInit),
    );
    if (!res.ok) throw new Error(`vCenter REST login: HTTP ${res.status}`);
    const token = ((await res.json()) as { value?: unknown }).value;
    if (typeof token !== "string" || token === "") throw new Error("vCenter REST login answered no session token");
    return token;
  }

  async function rest(method: "GET" | "POST", path: string, body: unknown, signal?: AbortSignal): Promise<unknown> {
    for (let attempt = 0; ; attempt++) {
      const current = (restSession ??= restLogin(signal).catch((error: unknown) => {
        restSession = undefined;
        throw error;
      }));
      const token = await current;
      const tls = await tlsFor();
      const res = await timed(`rest:${method} ${path.split("?")[0]?.replace(/\/id:[^/?]+/, "/id:{id}")}`, () =>
        fetch(`${base}/rest${path}`, {
          method,
          headers: {
            "vmware-api-session-id": token,
            ...(body === undefined ? {} : { "content-type": "application/json" }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: signalFor(signal),
          tls,
        } as RequestInit),
      );
      if (res.status === 401 && attempt === 0) {
        if (restSession === current) restSession = undefined;
        continue;
      }
      if (!res.ok) throw new Error(`vCenter REST ${method} ${path}: HTTP ${res.status}`);
      return ((await res.json()) as { value?: unknown }).value;
    }
  }

  /**
   * One page of the property collector. A property vCenter could not read (a session it no longer knows,
   * a permission missing) fails the call: an object read without its properties must never look absent.
   */
  async function page(method: string, args: XmlNode, signal?: AbortSignal): Promise<RetrieveResult> {
    const { content } = await session(signal);
    return soap(
      { method, self: content.propertyCollector, args },
      (body) => {
        const result = readRetrieveResult(body);
        const fault = result.objects.flatMap((o) => o.missing).find((m) => m.fault !== "ManagedObjectNotFound");
        if (fault) throw new SoapFault(fault.fault, `vCenter could not read ${fault.path}`);
        return result;
      },
      signal,
    );
  }

  async function retrieve(spec: XmlNode, signal?: AbortSignal): Promise<ObjectContent[]> {
    const options = { maxObjects: String(deps.pageSize ?? DEFAULT_PAGE_SIZE) };
    const first = await page("RetrievePropertiesEx", { specSet: spec, options }, signal);
    const objects = [...first.objects];
    for (let token = first.token; token !== undefined;) {
      const next = await page("ContinueRetrievePropertiesEx", { token }, signal);
      objects.push(...next.objects);
      token = next.token;
    }
    return objects;
  }

  interface AttachedTags {
    object_id?: { id?: string; type?: string };
    tag_ids?: string[];
  }

  return {
    datacenters: async (signal) =>
      readDatacenters(await retrieve(datacentersSpec((await session(signal)).content.rootFolder), signal)),
    async listVirtualMachines(datacenters, signal) {
      if (datacenters.length === 0) return [];
      const objects = await retrieve(vmScanSpec(datacenters), signal);
      // The datacenters themselves come back too: proof that the answer covers them, so a VM missing
      // from it is missing from vCenter, not from a view the session could not see.
      const seen = new Set(objects.filter((o) => o.obj.type === "Datacenter").map((o) => o.obj.value));
      const unseen = datacenters.filter((d) => !seen.has(d.value));
      if (unseen.length > 0)
        throw new Error(`vCenter answered the VM scan without datacenter(s) ${unseen.map((d) => d.value).join(", ")}`);
      return readVmSummaries(objects);
    },
    describeVirtualMachines: async (vms, signal) =>
      vms.length === 0 ? [] : readVmDetails(await retrieve(vmDetailsSpec(vms), signal)),
    ancestry: async (entities, signal) =>
      entities.length === 0 ? [] : readParents(await retrieve(ancestrySpec(entities), signal)),
    async attachedTags(objects, signal) {
      const out = new Map<string, string[]>();
      if (objects.length === 0) return out;
      const body = { object_ids: objects.map((o) => ({ id: o.value, type: o.type })) };
      const value = (await rest(
        "POST",
        "/com/vmware/cis/tagging/tag-association?~action=list-attached-tags-on-objects",
        body,
        signal,
      )) as AttachedTags[] | undefined;
      for (const entry of value ?? [])
        out.set(`${entry.object_id?.type ?? ""}:${entry.object_id?.id ?? ""}`, entry.tag_ids ?? []);
      return out;
    },
    async tag(id, signal) {
      const value = (await rest(
        "GET",
        `/com/vmware/cis/tagging/tag/id:${encodeURIComponent(id)}`,
        undefined,
        signal,
      )) as { name?: string; category_id?: string };
      return { name: value.name ?? "", categoryId: value.category_id ?? "" };
    },
    async categoryName(id, signal) {
      const value = (await rest(
        "GET",
        `/com/vmware/cis/tagging/category/id:${encodeURIComponent(id)}`,
        undefined,
        signal,
      )) as { name?: string };
      return value.name ?? "";
    },
    serviceContent: async (signal) => (await session(signal)).content,
    async close() {
      const current = soapSession;
      soapSession = undefined;
      restSession = undefined;
      if (!current) return;
      try {
        const { cookie, content } = await current;
        await post({ method: "Logout", self: content.sessionManager, args: {}, cookie }, AbortSignal.timeout(2000));
      } catch {
        // Logging out is a courtesy: the session times out on its own.
      }
    },
  };
}
