/**
 * What a Service asks of the allocator, read from its spec and annotations: address families (one address
 * per family; with PreferDualStack any one is enough), explicitly requested addresses, a pool, and
 * the traits that decide whether it may share an address. Also what a Service shows it holds (its status
 * and the announce annotations), read after a restart.
 */
import type { LoadBalancerStatus, Service } from "../../../src/kube/objects.ts";
import { formatIP, parseIP, type IP, type IPFamily } from "../../../src/net/ip.ts";
import { firstAnnotation, METALLB_ALIASES, type Annotated } from "./aliases.ts";
import { addressKey, familyName, type Pool, type Target } from "./pools.ts";
import type { LoadBalancerSettings } from "./pools-config.ts";
import type { ShareTraits } from "./sharing.ts";

export interface Claim extends ShareTraits {
  /** The Service UID (namespace/name when it has none): a re-created Service is a new claim. */
  readonly id: string;
  readonly target: Target;
  /** One address per family, in the Service's family order. */
  readonly families: readonly IPFamily[];
  /** How many of the families must get an address (PreferDualStack: any one); the rest are best effort. */
  readonly required: number;
  readonly requested: readonly IP[];
  readonly pool?: string;
  /** The Service lets the provider move it when its pools no longer offer it its address. */
  readonly allowMove: boolean;
  /** Which pool each address it shows came from (address key → pool name), as recorded when allocated. */
  readonly allocatedFrom: ReadonlyMap<string, string>;
}

/** What a claim is read against besides the Service: the pools in force and namespace labels. */
export interface ClaimContext {
  readonly pools: readonly Pool[];
  readonly namespaceLabels: (namespace: string) => Readonly<Record<string, string>>;
}

export type ClaimResult =
  | { readonly ok: true; readonly claim: Claim; readonly remarks: readonly string[] }
  | { readonly ok: false; readonly problem: string };

export const serviceKey = (service: Service): string => `${service.metadata.namespace ?? ""}/${service.metadata.name}`;
export const claimId = (service: Service): string => service.metadata.uid || serviceKey(service);

function backendOf(service: Service): string {
  if (service.spec?.externalTrafficPolicy !== "Local") return "";
  const selector = Object.entries(service.spec.selector ?? {}).map(([k, v]) => `${k}=${v}`);
  return `Local:${selector.sort().join(",")}`;
}

/** Never fails: a Service with unreadable annotations still has traits, so a restart can restore it. */
const sharingOf = (service: Service, settings: LoadBalancerSettings): Annotated | undefined =>
  firstAnnotation(service.metadata.annotations, [settings.sharingAnnotation, ...METALLB_ALIASES.sharing]);

export function shareTraitsOf(service: Service, settings: LoadBalancerSettings): ShareTraits {
  return {
    service: serviceKey(service),
    key: sharingOf(service, settings)?.value,
    backend: backendOf(service),
    ports: (service.spec?.ports ?? []).map((p) => `${p.protocol ?? "TCP"}/${p.port}`),
  };
}

function parseRequested(texts: readonly string[], source: string): { ips: IP[]; problem?: string } {
  const ips: IP[] = [];
  for (const text of texts) {
    const ip = parseIP(text);
    if (!ip) return { ips, problem: `${source}: ${JSON.stringify(text)} is not an IP address` };
    if (ips.some((other) => other.family === ip.family))
      return { ips, problem: `${source}: at most one address per IP family` };
    ips.push(ip);
  }
  return { ips };
}

/**
 * Addresses from the annotation (comma-separated; ours, else MetalLB's unless the provider writes it as
 * an announce annotation), else `spec.loadBalancerIP`.
 */
function readRequested(
  service: Service,
  settings: LoadBalancerSettings,
): { ips: IP[]; problem?: string; remarks: string[] } {
  const aliases = METALLB_ALIASES.requestedIPs.filter((key) => !settings.announceAnnotations.includes(key));
  const found = firstAnnotation(service.metadata.annotations, [settings.keys.requestedIPs, ...aliases]);
  const legacy = service.spec?.loadBalancerIP ?? "";
  const texts = (found?.value ?? legacy)
    .split(",")
    .map((t) => t.trim())
    .filter((t) => t !== "");
  const parsed = parseRequested(texts, found === undefined ? "spec.loadBalancerIP" : `annotation ${found.key}`);
  const remarks = [...(found?.ignored ?? [])];
  if (found && legacy !== "") remarks.push(`spec.loadBalancerIP is ignored because annotation ${found.key} is set`);
  return { ...parsed, remarks };
}

function familiesOf(service: Service, requested: readonly IP[]): { families: IPFamily[]; required: number } {
  const spec = service.spec ?? {};
  const declared = (spec.ipFamilies ?? []).map((f): IPFamily => (f === "IPv6" ? 6 : 4));
  const all = declared.length > 0 ? declared : [requested[0]?.family ?? 4];
  const policy = spec.ipFamilyPolicy ?? "SingleStack";
  const families = policy === "SingleStack" ? all.slice(0, 1) : all;
  return { families, required: policy === "PreferDualStack" ? 1 : families.length };
}

function poolProblem(pool: Annotated | undefined, pools: readonly Pool[]): string | undefined {
  if (pool === undefined || pools.some((p) => p.name === pool.value)) return undefined;
  const known = pools.map((p) => p.name).join(", ") || "none";
  return `annotation ${pool.key} names address pool ${JSON.stringify(pool.value)}, which does not exist (pools: ${known})`;
}

export function targetOf(service: Service, context: ClaimContext): Target {
  const namespace = service.metadata.namespace ?? "";
  return {
    namespace,
    namespaceLabels: context.namespaceLabels(namespace),
    serviceLabels: service.metadata.labels ?? {},
  };
}

function familyProblem(requested: readonly IP[], families: readonly IPFamily[]): string | undefined {
  const stray = requested.find((ip) => !families.includes(ip.family));
  if (!stray) return undefined;
  const declared = families.map(familyName).join(",");
  return `requested address ${formatIP(stray)} is ${familyName(stray.family)}, but the Service has ipFamilies ${declared}`;
}

export function claimFor(service: Service, settings: LoadBalancerSettings, context: ClaimContext): ClaimResult {
  const keys = settings.keys;
  const annotations = service.metadata.annotations;
  const requested = readRequested(service, settings);
  if (requested.problem) return { ok: false, problem: requested.problem };
  const { families, required } = familiesOf(service, requested.ips);
  const pool = firstAnnotation(annotations, [keys.addressPool, ...METALLB_ALIASES.addressPool]);
  const problem = familyProblem(requested.ips, families) ?? poolProblem(pool, context.pools);
  if (problem) return { ok: false, problem };
  const claim: Claim = {
    ...shareTraitsOf(service, settings),
    id: claimId(service),
    target: targetOf(service, context),
    families,
    required,
    requested: requested.ips,
    pool: pool?.value,
    allowMove: annotations?.[keys.allowAddressMove] === "true",
    allocatedFrom: allocatedFrom(service, settings),
  };
  const remarks = [...requested.remarks, ...(pool?.ignored ?? []), ...(sharingOf(service, settings)?.ignored ?? [])];
  return { ok: true, claim, remarks };
}

/** The recorded origin pool of each address the Service holds. */
export function allocatedFrom(service: Service, settings: LoadBalancerSettings): Map<string, string> {
  const names = (service.metadata.annotations?.[settings.keys.allocatedFrom] ?? "").split(",").map((n) => n.trim());
  const { active } = evidenceOf(service, settings);
  return new Map(active.flatMap((ip, i) => (names[i] ? [[addressKey(ip), names[i]] as [string, string]] : [])));
}

const parseList = (texts: readonly string[]): IP[] => texts.flatMap((text) => parseIP(text.trim()) ?? []);
const statusIPs = (service: Service): IP[] =>
  parseList((service.status?.loadBalancer?.ingress ?? []).map((i) => i.ip ?? ""));
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

/** What a Service shows it holds, read after a restart (see `evidenceOf`). */
export interface ShownEvidence {
  /** What it holds: the addresses its status backs, and the `unconfirmed` ones. */
  readonly active: readonly IP[];
  /**
   * The active addresses only the announce annotation shows. A restore keeps them only where no
   * status-backed holder has them, whatever the Services' ages: a running provider never hands out an
   * address a Service's status shows, so such an annotation is not the newer word there.
   */
  readonly unconfirmed: readonly IP[];
  /** Status addresses (also in `retiring`) held instead when the unconfirmed address of their family is not. */
  readonly fallback: readonly IP[];
  /** What it may still show but no longer holds. */
  readonly retiring: readonly IP[];
}

/**
 * What a Service holds, read after a restart. The announce annotation is written before the status, so
 * when both exist the annotation is the newer word and a status address it lacks is one being given up.
 * An address only the annotation shows may also be one a person wrote there, which a running provider
 * would have overwritten: it counts as held only if `fits` (it is in a pool that serves the Service), else
 * the status address of its family stays held and the annotation's is given up; and even then it is
 * `unconfirmed`, second to any status that shows it. So a restart keeps what a running provider would
 * keep. A Service being deleted or no longer of type LoadBalancer holds nothing, but what it shows stays
 * taken.
 */
export function evidenceOf(
  service: Service,
  settings: LoadBalancerSettings,
  fits: (ip: IP) => boolean = () => true,
): ShownEvidence {
  const announced = announcedIPs(service, settings);
  const status = statusIPs(service);
  const none: IP[] = [];
  if (!wantsAddresses(service))
    return { active: none, unconfirmed: none, fallback: none, retiring: [...announced, ...status] };
  if (announced.length === 0) return { active: status, unconfirmed: none, fallback: none, retiring: none };
  const inStatus = new Set(status.map(addressKey));
  const unconfirmed = announced.filter((ip) => !inStatus.has(addressKey(ip)) && fits(ip));
  const trusted = announced.filter((ip) => inStatus.has(addressKey(ip)) || unconfirmed.includes(ip));
  const ofTrustedFamily = (ip: IP): boolean => trusted.some((t) => t.family === ip.family);
  const refused = announced.filter((ip) => !trusted.includes(ip)).map((ip) => ip.family);
  const standIn = status.filter((ip) => refused.includes(ip.family) && !ofTrustedFamily(ip));
  const active = [...trusted, ...standIn];
  const keys = new Set(active.map(addressKey));
  const shown = new Map([...announced, ...status].map((ip) => [addressKey(ip), ip]));
  const retiring = [...shown.values()].filter((ip) => !keys.has(addressKey(ip)));
  const ofUnconfirmedFamily = (ip: IP): boolean => unconfirmed.some((u) => u.family === ip.family);
  const fallback = retiring.filter((ip) => inStatus.has(addressKey(ip)) && ofUnconfirmedFamily(ip));
  return { active, unconfirmed, fallback, retiring };
}

export function ingressOf(addresses: readonly string[]): LoadBalancerStatus {
  return { ingress: addresses.map((ip) => ({ ip, ipMode: "VIP" as const })) };
}
