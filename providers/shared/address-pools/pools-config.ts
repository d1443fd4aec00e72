/**
 * Reading address pools: one pool's fields (the same in a cloud-config file and in an AddressPool
 * object's spec), the rule that pools never overlap, and the `loadBalancers` section of a cloud-config.
 * Without that section a provider offers no load balancers, so the service controller stays off and
 * another implementation (MetalLB, kube-vip-cloud-provider) can own them.
 *
 * ```yaml
 * loadBalancers:
 *   source: file            # file (pools below) | cluster (AddressPool objects)
 *   pools:
 *     - { name: public, addresses: [203.0.113.0/28, "198.51.100.10-198.51.100.20"], priority: 10 }
 *     - { name: team-a, namespaces: [team-a], addresses: [10.10.0.0/24], allowAddressMoves: true }
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
import { readSelectors } from "../label-selector.ts";
import { ANNOTATION_KUBE_VIP_IPS, readKeys, type ServiceKeys } from "./annotations.ts";
import { parseAddressRange, rangesOverlap, type AddressRange, type AllocationOrder, type Pool } from "./pools.ts";

export type PoolSource = "file" | "cluster";

export interface LoadBalancerSettings {
  /** Where pools come from: this file, or AddressPool objects in the cluster. */
  readonly source: PoolSource;
  /** The file's pools; empty with `source: cluster`. */
  readonly pools: readonly Pool[];
  readonly sharingAnnotation: string;
  /** Annotations the allocated addresses are written to, for announcers; also evidence after a restart. */
  readonly announceAnnotations: readonly string[];
  readonly keys: ServiceKeys;
}

/** A pool's fields besides its name, as in a file entry or an AddressPool spec. */
export const POOL_FIELDS = [
  "addresses",
  "namespaces",
  "namespaceSelectors",
  "serviceSelectors",
  "priority",
  "autoAssign",
  "avoidBuggyIPs",
  "allocationOrder",
  "allowAddressMoves",
  "implicitSharing",
];
const SECTION_KEYS = ["source", "pools", "sharingAnnotation", "announceAnnotations"];
const ORDERS: readonly AllocationOrder[] = ["Ascending", "Descending"];

function readRanges(p: Problems, raw: Raw, path: string): AddressRange[] {
  const texts = stringList(p, raw, "addresses", path);
  if (texts.length === 0) p.add(`${path}.addresses`, "must list at least one CIDR, range (first-last) or address");
  return texts.flatMap((text) => {
    const range = parseAddressRange(text);
    if (!range)
      p.add(
        `${path}.addresses`,
        `${JSON.stringify(text)} is not a CIDR, a range of one family (first-last) or an address`,
      );
    return range ? [range] : [];
  });
}

/** Ranges of one pool that share an address: refused, or the pool's capacity would count them twice. */
function checkOwnRanges(p: Problems, name: string, ranges: readonly AddressRange[], path: string): void {
  ranges.forEach((a, i) => {
    for (const b of ranges.slice(i + 1))
      if (rangesOverlap(a, b)) p.add(`${path}.addresses`, `${a.text} overlaps ${b.text}, both in pool ${name}`);
  });
}

function readOrder(p: Problems, raw: Raw, path: string): AllocationOrder {
  const order = optionalString(p, raw, "allocationOrder", path) ?? "Ascending";
  if (ORDERS.includes(order as AllocationOrder)) return order as AllocationOrder;
  p.add(`${path}.allocationOrder`, `must be one of ${ORDERS.join(", ")}`);
  return "Ascending";
}

/** One pool's fields (`raw` without its name); problems name `path`. */
export function readPoolFields(p: Problems, name: string, raw: Raw, path: string): Pool {
  const namespaces = stringList(p, raw, "namespaces", path);
  for (const ns of namespaces)
    if (!isDnsLabel(ns)) p.add(`${path}.namespaces`, `${JSON.stringify(ns)} is not a namespace name`);
  const ranges = readRanges(p, raw, path);
  checkOwnRanges(p, name, ranges, path);
  return {
    name,
    ranges,
    namespaces,
    namespaceSelectors: readSelectors(p, raw, "namespaceSelectors", path),
    serviceSelectors: readSelectors(p, raw, "serviceSelectors", path),
    priority: optionalCount(p, raw, "priority", path),
    autoAssign: optionalBool(p, raw, "autoAssign", path) ?? true,
    avoidBuggyIPs: optionalBool(p, raw, "avoidBuggyIPs", path) ?? false,
    allocationOrder: readOrder(p, raw, path),
    allowAddressMoves: optionalBool(p, raw, "allowAddressMoves", path) ?? false,
    implicitSharing: optionalBool(p, raw, "implicitSharing", path) ?? false,
  };
}

function readPool(p: Problems, item: unknown, path: string): Pool | undefined {
  const raw = mappingAt(p, item, path);
  const name = raw ? optionalString(p, raw, "name", path) : undefined;
  if (!raw || name === undefined || !isDnsLabel(name)) {
    p.add(path, "must be a mapping with a name made of a-z, 0-9 and '-'");
    return undefined;
  }
  onlyKeys(p, raw, path, ["name", ...POOL_FIELDS]);
  return readPoolFields(p, name, raw, path);
}

/** Pairs of pools that share an address, as lines; every address must have at most one pool. */
export function overlaps(pools: readonly Pool[]): { a: Pool; b: Pool; line: string }[] {
  const ranges = pools.flatMap((pool) => pool.ranges.map((range) => ({ pool, range })));
  return ranges.flatMap((x, i) =>
    ranges
      .slice(i + 1)
      .filter((y) => x.pool !== y.pool && rangesOverlap(x.range, y.range))
      .map((y) => ({
        a: x.pool,
        b: y.pool,
        line: `${x.range.text} (pool ${x.pool.name}) overlaps ${y.range.text} (pool ${y.pool.name})`,
      })),
  );
}

function checkPools(p: Problems, pools: readonly Pool[]): void {
  const seen = new Set<string>();
  pools.forEach((pool, i) => {
    if (seen.has(pool.name)) p.add(`loadBalancers.pools[${i}].name`, `${JSON.stringify(pool.name)} is listed twice`);
    seen.add(pool.name);
  });
  for (const o of overlaps(pools)) p.add("loadBalancers.pools", o.line);
}

function readAnnotationKey(p: Problems, raw: Raw, key: string, fallback: string): string {
  const value = optionalString(p, raw, key, "loadBalancers") ?? fallback;
  const problem = qualifiedNameProblem(value, "annotation key");
  if (problem) p.add(`loadBalancers.${key}`, problem);
  return value;
}

function readAnnounce(p: Problems, raw: Raw, sharing: string, keys: ServiceKeys): string[] {
  const announce =
    raw.announceAnnotations === undefined
      ? [ANNOTATION_KUBE_VIP_IPS]
      : stringList(p, raw, "announceAnnotations", "loadBalancers");
  for (const key of announce) {
    const problem = qualifiedNameProblem(key, "annotation key");
    if (problem) p.add("loadBalancers.announceAnnotations", problem);
    if (key === sharing || key === keys.allocatedFrom || readKeys(keys).includes(key)) {
      p.add(
        "loadBalancers.announceAnnotations",
        `${JSON.stringify(key)} is read from Services, so the provider cannot also write it`,
      );
    }
  }
  return announce;
}

function readSource(p: Problems, raw: Raw): { source: PoolSource; pools: Pool[] } {
  const source = optionalString(p, raw, "source", "loadBalancers") ?? "file";
  if (source === "cluster") {
    if (raw.pools !== undefined)
      p.add("loadBalancers.pools", "source: cluster reads AddressPool objects; remove pools (or set source: file)");
    return { source, pools: [] };
  }
  if (source !== "file") p.add("loadBalancers.source", "must be file or cluster");
  const items = listAt(p, raw, "pools", "loadBalancers");
  if (items.length === 0 && (raw.pools === undefined || Array.isArray(raw.pools)))
    p.add("loadBalancers.pools", "must list at least one pool");
  const pools = items.flatMap((item, i) => readPool(p, item, `loadBalancers.pools[${i}]`) ?? []);
  checkPools(p, pools);
  return { source: "file", pools };
}

/** Undefined when the section is absent: no load balancers. */
export function parseLoadBalancers(p: Problems, value: unknown, keys: ServiceKeys): LoadBalancerSettings | undefined {
  const raw = mappingAt(p, value, "loadBalancers");
  if (!raw) return undefined;
  onlyKeys(p, raw, "loadBalancers", SECTION_KEYS);
  const sharingAnnotation = readAnnotationKey(p, raw, "sharingAnnotation", keys.sharingKey);
  if (readKeys(keys).includes(sharingAnnotation) || sharingAnnotation === keys.allocatedFrom) {
    p.add("loadBalancers.sharingAnnotation", `${JSON.stringify(sharingAnnotation)} already has another meaning`);
  }
  return {
    ...readSource(p, raw),
    sharingAnnotation,
    announceAnnotations: readAnnounce(p, raw, sharingAnnotation, keys),
    keys,
  };
}
