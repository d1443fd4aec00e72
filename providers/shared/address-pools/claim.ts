/**
 * What a Service asks of the allocator, read from its spec and annotations: address families (one address
 * per family; with PreferDualStack the second is best effort), explicitly requested addresses, a pool, and
 * the traits that decide whether it may share an address. Also what a Service shows it holds (its status
 * and the announce annotations), read after a restart.
 */
import type { LoadBalancerStatus, Service } from "../../../src/kube/objects.ts";
import { formatIP, parseIP, type IP, type IPFamily } from "../../../src/net/ip.ts";
import { addressKey, familyName } from "./pools.ts";
import { ANNOTATION_ADDRESS_POOL, ANNOTATION_REQUESTED_IPS, type LoadBalancerSettings } from "./pools-config.ts";
import type { ShareTraits } from "./sharing.ts";

export interface Claim extends ShareTraits {
  /** The Service UID (namespace/name when it has none): a re-created Service is a new claim. */
  readonly id: string;
  readonly namespace: string;
  /** One address per family, in the Service's family order. */
  readonly families: readonly IPFamily[];
  /** How many leading families must get an address; the rest are best effort. */
  readonly required: number;
  readonly requested: readonly IP[];
  readonly pool?: string;
}

export type ClaimResult = { readonly ok: true; readonly claim: Claim; readonly remarks: readonly string[] } | { readonly ok: false; readonly problem: string };

export const serviceKey = (service: Service): string => `${service.metadata.namespace ?? ""}/${service.metadata.name}`;
export const claimId = (service: Service): string => service.metadata.uid || serviceKey(service);

function backendOf(service: Service): string {
  if (service.spec?.externalTrafficPolicy !== "Local") return "";
  const selector = Object.entries(service.spec.selector ?? {}).map(([k, v]) => `${k}=${v}`);
  return `Local:${selector.sort().join(",")}`;
}

/** Never fails: a Service with unreadable annotations still has traits, so a restart can restore it. */
export function shareTraitsOf(service: Service, settings: LoadBalancerSettings): ShareTraits {
  const key = service.metadata.annotations?.[settings.sharingAnnotation];
  return {
    service: serviceKey(service),
    key: key === undefined || key === "" ? undefined : key,
    backend: backendOf(service),
    ports: (service.spec?.ports ?? []).map((p) => `${p.protocol ?? "TCP"}/${p.port}`),
  };
}

function parseRequested(texts: readonly string[], source: string): { ips: IP[]; problem?: string } {
  const ips: IP[] = [];
  for (const text of texts) {
    const ip = parseIP(text);
    if (!ip) return { ips, problem: `${source}: ${JSON.stringify(text)} is not an IP address` };
    if (ips.some((other) => other.family === ip.family)) return { ips, problem: `${source}: at most one address per IP family` };
    ips.push(ip);
  }
  return { ips };
}

/** Addresses from the annotation (comma-separated), else `spec.loadBalancerIP`. */
function readRequested(service: Service): { ips: IP[]; problem?: string; remark?: string } {
  const annotation = service.metadata.annotations?.[ANNOTATION_REQUESTED_IPS];
  const legacy = service.spec?.loadBalancerIP ?? "";
  const texts = (annotation ?? legacy).split(",").map((t) => t.trim()).filter((t) => t !== "");
  const parsed = parseRequested(texts, annotation === undefined ? "spec.loadBalancerIP" : `annotation ${ANNOTATION_REQUESTED_IPS}`);
  const ignored = annotation !== undefined && legacy !== "";
  return ignored ? { ...parsed, remark: `spec.loadBalancerIP is ignored because annotation ${ANNOTATION_REQUESTED_IPS} is set` } : parsed;
}

function familiesOf(service: Service, requested: readonly IP[]): { families: IPFamily[]; required: number } {
  const spec = service.spec ?? {};
  const declared = (spec.ipFamilies ?? []).map((f): IPFamily => (f === "IPv6" ? 6 : 4));
  const all = declared.length > 0 ? declared : [requested[0]?.family ?? 4];
  const policy = spec.ipFamilyPolicy ?? "SingleStack";
  const families = policy === "SingleStack" ? all.slice(0, 1) : all;
  return { families, required: policy === "PreferDualStack" ? 1 : families.length };
}

function poolProblem(pool: string | undefined, settings: LoadBalancerSettings): string | undefined {
  if (pool === undefined || settings.pools.some((p) => p.name === pool)) return undefined;
  return `annotation ${ANNOTATION_ADDRESS_POOL} names address pool ${JSON.stringify(pool)}, which does not exist (pools: ${settings.pools.map((p) => p.name).join(", ")})`;
}

export function claimFor(service: Service, settings: LoadBalancerSettings): ClaimResult {
  const requested = readRequested(service);
  if (requested.problem) return { ok: false, problem: requested.problem };
  const { families, required } = familiesOf(service, requested.ips);
  const stray = requested.ips.find((ip) => !families.includes(ip.family));
  if (stray) {
    return { ok: false, problem: `requested address ${formatIP(stray)} is ${familyName(stray.family)}, but the Service has ipFamilies ${families.map(familyName).join(",")}` };
  }
  const pool = service.metadata.annotations?.[ANNOTATION_ADDRESS_POOL] || undefined;
  const problem = poolProblem(pool, settings);
  if (problem) return { ok: false, problem };
  const claim: Claim = {
    ...shareTraitsOf(service, settings),
    id: claimId(service),
    namespace: service.metadata.namespace ?? "",
    families,
    required,
    requested: requested.ips,
    pool,
  };
  return { ok: true, claim, remarks: requested.remark ? [requested.remark] : [] };
}

const parseList = (texts: readonly string[]): IP[] => texts.flatMap((text) => parseIP(text.trim()) ?? []);
const statusIPs = (service: Service): IP[] => parseList((service.status?.loadBalancer?.ingress ?? []).map((i) => i.ip ?? ""));
const announcedIPs = (service: Service, settings: LoadBalancerSettings): IP[] =>
  parseList(settings.announceAnnotations.flatMap((key) => (service.metadata.annotations?.[key] ?? "").split(",")));

/** Canonical texts of the addresses in the Service's status. */
export function statusAddresses(service: Service): Set<string> {
  return new Set(statusIPs(service).map(addressKey));
}

/** Canonical texts of every address the Service shows (status and announce annotations). */
export function shownAddresses(service: Service, settings: LoadBalancerSettings): Set<string> {
  return new Set([...statusIPs(service), ...announcedIPs(service, settings)].map(addressKey));
}

/** A Service that should hold load-balancer addresses; others only show addresses they are giving up. */
export function wantsAddresses(service: Service): boolean {
  return service.spec?.type === "LoadBalancer" && !service.metadata.deletionTimestamp;
}

/**
 * What a Service holds, read after a restart. The announce annotation is written before the status, so
 * when both exist the annotation is the newer word and a status address it lacks is one being given up.
 * A Service being deleted or no longer of type LoadBalancer holds nothing, but what it shows stays taken.
 */
export function evidenceOf(service: Service, settings: LoadBalancerSettings): { active: IP[]; retiring: IP[] } {
  const announced = announcedIPs(service, settings);
  const status = statusIPs(service);
  if (!wantsAddresses(service)) return { active: [], retiring: [...announced, ...status] };
  if (announced.length === 0) return { active: status, retiring: [] };
  const keys = new Set(announced.map(addressKey));
  return { active: announced, retiring: status.filter((ip) => !keys.has(addressKey(ip))) };
}

export function ingressOf(addresses: readonly string[]): LoadBalancerStatus {
  return { ingress: addresses.map((ip) => ({ ip, ipMode: "VIP" as const })) };
}
