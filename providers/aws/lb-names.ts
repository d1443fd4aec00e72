/** Names shared by the classic ELB and the NLB paths. */
import type { Service } from "../../src/kube/objects.ts";

/** Upstream `DefaultLoadBalancerName`: "a" + the UID without dashes, at most 32 characters (the ELB name limit). */
export function loadBalancerName(service: Service): string {
  return `a${(service.metadata.uid ?? "").replaceAll("-", "")}`.slice(0, 32);
}

/** `namespace/name`, as the ownership tags and log lines carry it. */
export function serviceName(service: Service): string {
  return `${service.metadata.namespace ?? ""}/${service.metadata.name}`;
}
