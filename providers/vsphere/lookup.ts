/**
 * Finding nodes' VMs with few round trips, however many nodes ask at once: one property-collector scan of
 * every VM in the configured datacenters (shared by concurrent callers, reused for `scanTtlMs`), then one
 * details call for the VMs of a batch, then, for zones, one tag call (ancestors and tag names cached).
 * A node whose VM is missing from a scan is looked up again in a fresh scan before it is called absent:
 * "does not exist" is said only when vCenter definitely has no such VM: never while a configured datacenter
 * is missing or a VM's config cannot be read (that VM may be the one asked for).
 */
import type { Answer } from "../../src/cloud/provider.ts";
import type { Node } from "../../src/kube/objects.ts";
import type { VSphereApi } from "./api.ts";
import { incompleteSearch, selectDatacenters, type DatacenterSelection } from "./datacenters.ts";
import { byteSwapUuid, nodeKeys, type NodeKeys } from "./node-identity.ts";
import { refKey, type EntityParent, type VmDetails, type VmSummary } from "./queries.ts";
import type { MoRef } from "./soap-xml.ts";
import { topologyChains, topologyOf, type ResolvedTag, type Topology } from "./zones.ts";

export type Resolution =
  | { readonly kind: "found"; readonly vm: VmSummary }
  /** The node's vsphere:// providerID names a VM vCenter does not have: definitely gone. */
  | { readonly kind: "absent"; readonly reason: string }
  /**
   * A node without a providerID that no VM answers to by UUID, name or address: not definite (names and
   * addresses change), so upstream's error, never "does not exist".
   */
  | { readonly kind: "unmatched"; readonly reason: string }
  | { readonly kind: "error"; readonly error: Error };

export interface LookupDeps {
  readonly api: VSphereApi;
  /** Datacenter names or inventory paths to search; empty: all. */
  readonly datacenters: readonly string[];
  readonly now?: () => number;
  readonly scanTtlMs?: number;
  /** How long ancestors and tag names are trusted. */
  readonly topologyTtlMs?: number;
}

interface VmIndex {
  readonly at: number;
  /** Why a VM missing from this scan may still exist (`incompleteScan`); undefined: it does not. */
  readonly incomplete?: string;
  readonly byUuid: ReadonlyMap<string, VmSummary>;
  readonly byName: ReadonlyMap<string, readonly VmSummary[]>;
  readonly byIp: ReadonlyMap<string, readonly VmSummary[]>;
}

function push<T>(map: Map<string, T[]>, key: string, value: T): void {
  if (key === "") return;
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

export function buildIndex(vms: readonly VmSummary[], at: number, incomplete?: string): VmIndex {
  const byUuid = new Map<string, VmSummary>();
  const byName = new Map<string, VmSummary[]>();
  const byIp = new Map<string, VmSummary[]>();
  for (const vm of vms) {
    if (vm.uuid !== "") byUuid.set(vm.uuid, vm);
    push(byName, vm.name.toLowerCase(), vm);
    const host = vm.hostName.toLowerCase();
    if (host !== vm.name.toLowerCase()) push(byName, host, vm);
    for (const ip of vm.ips) push(byIp, ip, vm);
  }
  return { at, incomplete, byUuid, byName, byIp };
}

/**
 * Why a VM missing from a scan may still exist: configured datacenters not searched (`searched`), or VMs
 * whose config vSphere could not read (any of them may be the one asked for); undefined when neither.
 */
export function incompleteScan(vms: readonly VmSummary[], searched?: string): string | undefined {
  const unreadable = vms.filter((vm) => vm.uuid === "").map((vm) => vm.name || vm.ref.value);
  if (unreadable.length === 0) return searched;
  const shown = unreadable.slice(0, 5).join(", ") + (unreadable.length > 5 ? ", ..." : "");
  const why =
    `${unreadable.length} VM(s) (${shown}) have no readable config (files unreachable, or being created), ` +
    `so a VM not found is not taken for gone`;
  return searched ? `${searched}; ${why}` : why;
}

/** The one VM `keys` name in `index`, or why there is none. */
export function matchVm(keys: NodeKeys, index: VmIndex): Resolution {
  if (keys.foreignProviderId)
    return {
      kind: "error",
      error: new Error(`providerID ${JSON.stringify(keys.foreignProviderId)} is not a vsphere:// providerID`),
    };
  if (keys.providerUuid !== undefined) {
    // As upstream's shakeOutNodeIDLookup: as written, then byte-swapped (a providerID some installers
    // wrote from the SMBIOS form); absent only when neither form is a VM.
    const vm = byUuid([keys.providerUuid, byteSwapUuid(keys.providerUuid)], index);
    return vm ? { kind: "found", vm } : { kind: "absent", reason: `no VM has BIOS UUID ${keys.providerUuid}` };
  }
  const vm = byUuid(keys.systemUuids, index);
  return vm ? { kind: "found", vm } : matchByNameOrAddress(keys, index);
}

/** The VM of the first of `uuids` that names one. */
const byUuid = (uuids: readonly string[], index: VmIndex): VmSummary | undefined =>
  uuids.map((uuid) => index.byUuid.get(uuid)).find((v) => v !== undefined);

/** Upstream's last resort: the VM whose name or guest host name is the node's name, else its address. */
function matchByNameOrAddress(keys: NodeKeys, index: VmIndex): Resolution {
  const candidates = [index.byName.get(keys.name), ...keys.addresses.map((a) => index.byIp.get(a))];
  for (const list of candidates) {
    if (list?.length === 1 && list[0]) return { kind: "found", vm: list[0] };
    if (list && list.length > 1)
      return {
        kind: "error",
        error: new Error(`${list.length} VMs match node ${keys.name} by name or address; set its providerID`),
      };
  }
  return { kind: "unmatched", reason: `no VM has the node's system UUID, name or addresses` };
}

/** A VM not found in a scan that could not cover every configured datacenter: an error, never absent. */
function unsure(resolution: Resolution, index: VmIndex): Resolution {
  if (!index.incomplete || (resolution.kind !== "absent" && resolution.kind !== "unmatched")) return resolution;
  return { kind: "error", error: new Error(`${resolution.reason}; ${index.incomplete}`) };
}

export interface Described {
  readonly details: ReadonlyMap<string, VmDetails>;
  /** `refKey`s of VMs definitely removed from vCenter. */
  readonly gone: ReadonlySet<string>;
  /** Why VMs missing from the answer are not `gone`, when the fresh scan could not tell. */
  readonly incomplete?: string;
}

export interface VmLookup {
  resolve(nodes: readonly Node[], signal?: AbortSignal): Promise<Resolution[]>;
  /** Details of `vms`; a VM missing from the answer is `gone` only when a fresh scan lacks it too. */
  describe(vms: readonly MoRef[], signal?: AbortSignal): Promise<Described>;
  /**
   * Zone and region of each VM, keyed by `refKey`; none without both categories configured (upstream), an
   * error for a VM with no chain of objects carrying a tag of each.
   */
  zones(vms: readonly VmDetails[], categories: Topology, signal?: AbortSignal): Promise<Map<string, Answer<Topology>>>;
  /** The datacenters searched, and the configured ones vCenter lacks. */
  datacenters(signal?: AbortSignal): Promise<DatacenterSelection>;
}

export function createVmLookup(deps: LookupDeps): VmLookup {
  const now = deps.now ?? Date.now;
  const scanTtl = deps.scanTtlMs ?? 30_000;
  const topologyTtl = deps.topologyTtlMs ?? 600_000;
  let latest: { at: number; promise: Promise<VmIndex> } | undefined;
  let selected: Promise<DatacenterSelection> | undefined;
  const parents = new Map<string, { at: number; entity: EntityParent }>();
  const tags = new Map<string, { at: number; tag: ResolvedTag }>();
  const categories = new Map<string, Promise<string>>();

  /** The selection, kept once every configured datacenter is found (a missing one is looked for again). */
  function resolveDatacenters(signal?: AbortSignal): Promise<DatacenterSelection> {
    selected ??= deps.api
      .datacenters(signal)
      .then((all) => {
        const selection = selectDatacenters(all, deps.datacenters);
        if (selection.missing.length > 0) selected = undefined;
        return selection;
      })
      .catch((error: unknown) => {
        selected = undefined;
        throw error;
      });
    return selected;
  }

  /**
   * A scan started at `notBefore` or later: the one in flight or just done when there is one (concurrent
   * batches that miss a VM share it), else a new one.
   */
  function scan(signal?: AbortSignal, notBefore = Infinity): Promise<VmIndex> {
    if (latest && latest.at >= notBefore) return latest.promise;
    const started = now();
    const run = async (): Promise<VmIndex> => {
      const searched = await resolveDatacenters(signal);
      const vms = await deps.api.listVirtualMachines(searched.refs, signal);
      return buildIndex(vms, started, incompleteScan(vms, incompleteSearch(searched)));
    };
    const next = run();
    latest = { at: started, promise: next };
    next.catch(() => {
      if (latest?.promise === next) latest = undefined;
    });
    return next;
  }

  const current = async (signal?: AbortSignal): Promise<VmIndex> => {
    const cached = latest ? await latest.promise.catch(() => undefined) : undefined;
    return cached && now() - cached.at < scanTtl ? cached : scan(signal);
  };

  async function resolve(nodes: readonly Node[], signal?: AbortSignal): Promise<Resolution[]> {
    const keys = nodes.map(nodeKeys);
    const started = now();
    const first = await current(signal);
    const answers = keys.map((k) => matchVm(k, first));
    const missed = (a: Resolution): boolean => a.kind === "absent" || a.kind === "unmatched";
    if (!answers.some(missed)) return answers;
    const fresh = first.at >= started ? first : await scan(signal, started);
    return answers.map((a, i) => (missed(a) ? unsure(matchVm(keys[i] as NodeKeys, fresh), fresh) : a));
  }

  async function describe(vms: readonly MoRef[], signal?: AbortSignal): Promise<Described> {
    const asked = now();
    const details = new Map((await deps.api.describeVirtualMachines(vms, signal)).map((d) => [refKey(d.ref), d]));
    const missing = vms.map(refKey).filter((key) => !details.has(key));
    if (missing.length === 0) return { details, gone: new Set() };
    const fresh = await scan(signal, asked);
    if (fresh.incomplete) return { details, gone: new Set(), incomplete: fresh.incomplete };
    const still = new Set([...fresh.byUuid.values()].map((vm) => refKey(vm.ref)));
    return { details, gone: new Set(missing.filter((key) => !still.has(key))) };
  }

  async function ensureParents(roots: readonly MoRef[], signal?: AbortSignal): Promise<Map<string, EntityParent>> {
    const fresh = (ref: MoRef): boolean => now() - (parents.get(refKey(ref))?.at ?? -Infinity) < topologyTtl;
    const missing = [...new Map(roots.filter((r) => !fresh(r)).map((r) => [refKey(r), r])).values()];
    for (const entity of await deps.api.ancestry(missing, signal))
      parents.set(refKey(entity.ref), { at: now(), entity });
    return new Map([...parents].map(([k, v]) => [k, v.entity]));
  }

  async function resolveTag(id: string, signal?: AbortSignal): Promise<void> {
    const cached = tags.get(id);
    if (cached && now() - cached.at < topologyTtl) return;
    const tag = await deps.api.tag(id, signal);
    let category = categories.get(tag.categoryId);
    if (!category) {
      category = deps.api.categoryName(tag.categoryId, signal);
      categories.set(tag.categoryId, category);
      category.catch(() => categories.delete(tag.categoryId));
    }
    tags.set(id, { at: now(), tag: { name: tag.name, category: await category } });
  }

  async function zones(
    vms: readonly VmDetails[],
    wanted: Topology,
    signal?: AbortSignal,
  ): Promise<Map<string, Answer<Topology>>> {
    const out = new Map<string, Answer<Topology>>();
    if (wanted.zone === "" || wanted.region === "" || vms.length === 0) return out;
    const roots = vms.flatMap((vm) => [vm.host, vm.resourcePool, vm.parent].filter((r) => r !== undefined));
    const known = await ensureParents(roots, signal);
    const chains = vms.map((vm) => topologyChains(vm, known));
    const objects = [...new Map(chains.flat(2).map((r) => [refKey(r), r])).values()];
    const attached = await deps.api.attachedTags(objects, signal);
    await Promise.all([...new Set([...attached.values()].flat())].map((id) => resolveTag(id, signal)));
    const resolved = new Map([...tags].map(([id, v]) => [id, v.tag]));
    vms.forEach((vm, i) => {
      const topology = topologyOf(chains[i] ?? [], { attached, tags: resolved }, wanted);
      out.set(
        refKey(vm.ref),
        typeof topology === "string" ? { error: new Error(`VM ${vm.name}: ${topology}`) } : { value: topology },
      );
    });
    return out;
  }

  return { resolve, describe, zones, datacenters: resolveDatacenters };
}
