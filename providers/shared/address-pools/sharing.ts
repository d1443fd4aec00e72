/**
 * When two Services may use one address (MetalLB's allow-shared-ip rules): both carry the sharing
 * annotation with the same value, no protocol/port pair is used twice, and both send external traffic the
 * same way (both `externalTrafficPolicy: Cluster`, or both `Local` with the same selector, so the
 * announcer's choice of node suits both).
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
}

/** Why `claim` may not use an address that `holders` already use, or undefined when it may. */
export function sharingConflict(holders: readonly ShareTraits[], claim: ShareTraits, annotation: string): string | undefined {
  for (const holder of holders) {
    const why = pairConflict(holder, claim, annotation);
    if (why) return why;
  }
  return undefined;
}

function pairConflict(holder: ShareTraits, claim: ShareTraits, annotation: string): string | undefined {
  const by = `it is used by ${holder.service}`;
  if (holder.key === undefined) return `${by}, which does not share its address`;
  if (claim.key === undefined) return `${by}; to share it, give both Services the same ${annotation} annotation`;
  if (holder.key !== claim.key) return `${by} with sharing key ${JSON.stringify(holder.key)}, not ${JSON.stringify(claim.key)}`;
  if (holder.backend !== claim.backend) {
    return `${by}; sharing needs both Services on externalTrafficPolicy Cluster, or both on Local with the same selector`;
  }
  const clash = claim.ports.find((port) => holder.ports.includes(port));
  return clash === undefined ? undefined : `${by}, which already uses port ${clash} on it`;
}
