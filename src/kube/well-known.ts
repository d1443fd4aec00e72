/**
 * Taint, label, annotation and finalizer keys the controllers read and write (upstream
 * k8s.io/cloud-provider api/well_known_*.go and k8s.io/api well-known labels).
 */
export const TAINT_UNINITIALIZED = "node.cloudprovider.kubernetes.io/uninitialized";
export const TAINT_SHUTDOWN = "node.cloudprovider.kubernetes.io/shutdown";
/** Set by the cluster autoscaler on nodes it is about to remove; such nodes leave LB backends. */
export const TAINT_TO_BE_DELETED_BY_AUTOSCALER = "ToBeDeletedByClusterAutoscaler";

export const LABEL_INSTANCE_TYPE = "node.kubernetes.io/instance-type";
export const LABEL_INSTANCE_TYPE_BETA = "beta.kubernetes.io/instance-type";
export const LABEL_ZONE = "topology.kubernetes.io/zone";
export const LABEL_ZONE_BETA = "failure-domain.beta.kubernetes.io/zone";
export const LABEL_REGION = "topology.kubernetes.io/region";
export const LABEL_REGION_BETA = "failure-domain.beta.kubernetes.io/region";
export const LABEL_EXCLUDE_FROM_EXTERNAL_LB = "node.kubernetes.io/exclude-from-external-load-balancers";

/** kubelet `--node-ip` with an external cloud provider: one IP or a dual-stack pair. */
export const ANNOTATION_PROVIDED_NODE_IP = "alpha.kubernetes.io/provided-node-ip";

export const FINALIZER_LB_CLEANUP = "service.kubernetes.io/load-balancer-cleanup";

/** Beta (primary) → GA label pairs the node controller keeps in step on initialised nodes. */
export const BETA_TO_GA_LABELS: readonly (readonly [string, string])[] = [
  [LABEL_ZONE_BETA, LABEL_ZONE],
  [LABEL_REGION_BETA, LABEL_REGION],
  [LABEL_INSTANCE_TYPE_BETA, LABEL_INSTANCE_TYPE],
];
