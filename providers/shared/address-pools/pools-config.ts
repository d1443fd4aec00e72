/**
 * The `loadBalancers` section of the cloud-config. Without it the provider offers no load balancers, so the
 * service controller stays off and another implementation (MetalLB, kube-vip-cloud-provider) can own them.
 *
 * ```yaml
 * loadBalancers:
 *   pools:
 *     - { name: public, addresses: [203.0.113.0/28, "198.51.100.10-198.51.100.20", "2001:db8::/124"], priority: 10 }
 *     - { name: team-a, namespaces: [team-a], addresses: [10.10.0.0/24] }
 *     - { name: reserved, addresses: [203.0.113.100], autoAssign: false }
 *   sharingAnnotation: baremetal.cloudprovider.io/sharing-key   # e.g. metallb.io/allow-shared-ip
 *   announceAnnotations: [kube-vip.io/loadbalancerIPs]         # [] writes none
 * ```
 */
import {
  isDnsLabel,
  listAt,
  mappingAt,
  onlyKeys,
  optionalBool,
  optionalCount,
  optionalString,
  qualifiedNameProblem,
  stringList,
  type Problems,
  type Raw,
} from "../config-reader.ts";
import { parseAddressRange, rangesOverlap, type AddressRange, type Pool } from "./pools.ts";

/** The Service annotation listing requested addresses, one per family, comma-separated. */
export const ANNOTATION_REQUESTED_IPS = "baremetal.cloudprovider.io/loadBalancerIPs";
/** The Service annotation naming the one pool to allocate from. */
export const ANNOTATION_ADDRESS_POOL = "baremetal.cloudprovider.io/address-pool";
export const DEFAULT_SHARING_ANNOTATION = "baremetal.cloudprovider.io/sharing-key";
/** kube-vip (service mode) advertises the addresses it finds here. */
export const ANNOTATION_KUBE_VIP_IPS = "kube-vip.io/loadbalancerIPs";

export interface LoadBalancerSettings {
  readonly pools: readonly Pool[];
  readonly sharingAnnotation: string;
  /** Annotations the allocated addresses are written to, for announcers; also evidence after a restart. */
  readonly announceAnnotations: readonly string[];
}

const SECTION_KEYS = ["pools", "sharingAnnotation", "announceAnnotations"];
const POOL_KEYS = ["name", "addresses", "namespaces", "priority", "autoAssign"];

function readRanges(p: Problems, raw: Raw, path: string): AddressRange[] {
  const texts = stringList(p, raw, "addresses", path);
  if (texts.length === 0) p.add(`${path}.addresses`, "must list at least one CIDR, range (first-last) or address");
  return texts.flatMap((text) => {
    const range = parseAddressRange(text);
    if (!range) p.add(`${path}.addresses`, `${JSON.stringify(text)} is not a CIDR, a range of one family (first-last) or an address`);
    return range ? [range] : [];
  });
}

function readPool(p: Problems, item: unknown, path: string): Pool | undefined {
  const raw = mappingAt(p, item, path);
  const name = raw ? optionalString(p, raw, "name", path) : undefined;
  if (!raw || name === undefined || !isDnsLabel(name)) {
    p.add(path, "must be a mapping with a name made of a-z, 0-9 and '-'");
    return undefined;
  }
  onlyKeys(p, raw, path, POOL_KEYS);
  const namespaces = stringList(p, raw, "namespaces", path);
  for (const ns of namespaces) if (!isDnsLabel(ns)) p.add(`${path}.namespaces`, `${JSON.stringify(ns)} is not a namespace name`);
  return {
    name,
    ranges: readRanges(p, raw, path),
    namespaces,
    priority: optionalCount(p, raw, "priority", path),
    autoAssign: optionalBool(p, raw, "autoAssign", path) ?? true,
  };
}

/** Every address belongs to at most one pool, so "which pool is this address from" has one answer. */
function checkPools(p: Problems, pools: readonly Pool[]): void {
  const seen = new Map<string, number>();
  const ranges = pools.flatMap((pool) => pool.ranges.map((range) => ({ pool: pool.name, range })));
  pools.forEach((pool, i) => {
    if (seen.has(pool.name)) p.add(`loadBalancers.pools[${i}].name`, `${JSON.stringify(pool.name)} is listed twice`);
    seen.set(pool.name, i);
  });
  ranges.forEach((a, i) => {
    for (const b of ranges.slice(i + 1)) {
      if (rangesOverlap(a.range, b.range)) p.add("loadBalancers.pools", `${a.range.text} (pool ${a.pool}) overlaps ${b.range.text} (pool ${b.pool})`);
    }
  });
}

function readAnnotationKey(p: Problems, raw: Raw, key: string, fallback: string): string {
  const value = optionalString(p, raw, key, "loadBalancers") ?? fallback;
  const problem = qualifiedNameProblem(value, "annotation key");
  if (problem) p.add(`loadBalancers.${key}`, problem);
  return value;
}

function readAnnounce(p: Problems, raw: Raw, sharing: string): string[] {
  const keys = raw.announceAnnotations === undefined ? [ANNOTATION_KUBE_VIP_IPS] : stringList(p, raw, "announceAnnotations", "loadBalancers");
  for (const key of keys) {
    const problem = qualifiedNameProblem(key, "annotation key");
    if (problem) p.add("loadBalancers.announceAnnotations", problem);
    if (key === sharing || key === ANNOTATION_REQUESTED_IPS || key === ANNOTATION_ADDRESS_POOL) {
      p.add("loadBalancers.announceAnnotations", `${JSON.stringify(key)} is read from Services, so the provider cannot also write it`);
    }
  }
  return keys;
}

/** Undefined when the section is absent: no load balancers. */
export function parseLoadBalancers(p: Problems, value: unknown): LoadBalancerSettings | undefined {
  const raw = mappingAt(p, value, "loadBalancers");
  if (!raw) return undefined;
  onlyKeys(p, raw, "loadBalancers", SECTION_KEYS);
  const items = listAt(p, raw, "pools", "loadBalancers");
  if (items.length === 0 && (raw.pools === undefined || Array.isArray(raw.pools))) p.add("loadBalancers.pools", "must list at least one pool");
  const pools = items.flatMap((item, i) => readPool(p, item, `loadBalancers.pools[${i}]`) ?? []);
  checkPools(p, pools);
  const sharingAnnotation = readAnnotationKey(p, raw, "sharingAnnotation", DEFAULT_SHARING_ANNOTATION);
  if (sharingAnnotation === ANNOTATION_REQUESTED_IPS || sharingAnnotation === ANNOTATION_ADDRESS_POOL) {
    p.add("loadBalancers.sharingAnnotation", `${JSON.stringify(sharingAnnotation)} already has another meaning`);
  }
  return { pools, sharingAnnotation, announceAnnotations: readAnnounce(p, raw, sharingAnnotation) };
}
