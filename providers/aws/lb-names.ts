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

/**
 * `k8s-<ns[:8]>-<name[:8]>-`, the namespace and name without their non-alphanumerics (upstream's
 * `[^[:alnum:]]`, ASCII only): how upstream's NLB target group and managed security group names begin.
 */
export function k8sNamePrefix(service: Service): string {
  const clean = (part: string): string => part.replace(/[^0-9A-Za-z]/g, "").slice(0, 8);
  return `k8s-${clean(service.metadata.namespace ?? "")}-${clean(service.metadata.name)}-`;
}
