/**
 * MetalLB's Service annotations, read as aliases of ours so that a cluster moved from MetalLB keeps its
 * requested addresses, pools and sharing, before and after a restart. Ours come first: when both are
 * set, ours is read and the alias is reported as ignored. A key set to the empty string counts as unset.
 */
export const METALLB_ALIASES = {
  requestedIPs: ["metallb.io/loadBalancerIPs", "metallb.universe.tf/loadBalancerIPs"],
  addressPool: ["metallb.io/address-pool", "metallb.universe.tf/address-pool"],
  sharing: ["metallb.io/allow-shared-ip", "metallb.universe.tf/allow-shared-ip"],
} as const;

export interface Annotated {
  readonly key: string;
  readonly value: string;
  /** Remarks for the later keys set to another value. */
  readonly ignored: readonly string[];
}

/** The first of `keys` the annotations set (not empty), with remarks for later keys that disagree. */
export function firstAnnotation(
  annotations: Readonly<Record<string, string>> | undefined,
  keys: readonly string[],
): Annotated | undefined {
  const set = [...new Set(keys)].filter((key) => (annotations?.[key] ?? "") !== "");
  const [key, ...later] = set;
  if (key === undefined) return undefined;
  const value = annotations?.[key] ?? "";
  const ignored = later
    .filter((other) => annotations?.[other] !== value)
    .map((other) => `annotation ${other} is ignored because annotation ${key} is set`);
  return { key, value, ignored };
}
