/**
 * When two Services may use one address (MetalLB's allow-shared-ip rules): both carry the sharing
 * annotation with the same value, no protocol/port pair is used twice, and both send external traffic the
 * same way (both `externalTrafficPolicy: Cluster`, or both `Local` with the same selector, so the
 * announcer's choice of node suits both). In a pool with implicit sharing (kube-vip-cloud-provider's
 * `allow-share`), IPv4 addresses are shared by Services without the annotation whose ports differ.
 */
export interface ShareTraits {
  /** `namespace/name`, for messages. */
  readonly service: string;
  /** The sharing annotation's value; undefined: the Service wants its addresses to itself. */
  readonly key?: string;
  /** "" for `externalTrafficPolicy: Cluster`; the selector for `Local`. */
  readonly backend: string;
  /** `TCP/80`-style protocol/port pairs. */
  readonly ports: readonly string[];
  /** The holder is giving the address up: it shares it with nobody. */
  readonly givingUp?: boolean;
}

/** How an address may be shared: the sharing annotation's key, and whether its pool shares implicitly. */
export interface SharingRules {
  readonly annotation: string;
  /** The address is IPv4 and in a pool with implicit sharing. */
  readonly implicit: boolean;
}

/** Why `claim` may not use an address that `holders` already use, or undefined when it may. */
export function sharingConflict(
  holders: readonly ShareTraits[],
  claim: ShareTraits,
  rules: SharingRules,
): string | undefined {
  for (const holder of holders) {
    if (holder.givingUp) return `it is used by ${holder.service}, which is giving it up`;
    const why =
      rules.implicit && holder.key === undefined && claim.key === undefined
        ? portClash(holder, claim)
        : pairConflict(holder, claim, rules.annotation);
    if (why) return why;
  }
  return undefined;
}

function portClash(holder: ShareTraits, claim: ShareTraits): string | undefined {
  const clash = claim.ports.find((port) => holder.ports.includes(port));
  return clash === undefined ? undefined : `it is used by ${holder.service}, which already uses port ${clash} on it`;
}

function pairConflict(holder: ShareTraits, claim: ShareTraits, annotation: string): string | undefined {
  const by = `it is used by ${holder.service}`;
  if (holder.key === undefined) return `${by}, which does not share its address`;
  if (claim.key === undefined) return `${by}; to share it, give both Services the same ${annotation} annotation`;
  if (holder.key !== claim.key)
    return `${by} with sharing key ${JSON.stringify(holder.key)}, not ${JSON.stringify(claim.key)}`;
  if (holder.backend !== claim.backend) {
    return `${by}; sharing needs both Services on externalTrafficPolicy Cluster, or both on Local with the same selector`;
  }
  return portClash(holder, claim);
}
