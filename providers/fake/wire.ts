/** The fake cloud's request and response shapes, shared by the in-process and the HTTP transport. */
export interface NodeRef {
  readonly name: string;
  readonly providerID?: string;
}

export interface WireError {
  readonly code:
    "Throttled" | "InternalError" | "NotFound" | "InvalidParameter" | "AlreadyExists" | "InsufficientCapacity";
  readonly message: string;
}

export interface LbPort {
  readonly name?: string;
  readonly protocol: string;
  readonly port: number;
  readonly nodePort?: number;
}

export interface LbRequest {
  readonly name: string;
  readonly clusterName: string;
  readonly service: string;
  readonly serviceUID: string;
  readonly ports: readonly LbPort[];
  readonly ipFamilies: readonly string[];
  readonly annotations: Readonly<Record<string, string>>;
  readonly sourceRanges: readonly string[];
  readonly nodes: readonly string[];
}

export interface FakeLoadBalancer extends LbRequest {
  readonly ingress: readonly { readonly ip?: string; readonly hostname?: string }[];
  readonly ensureCount: number;
  readonly updateCount: number;
}

/**
 * EnsureLoadBalancer's answer: the load balancer without the node list its request carried (at 20,000
 * Nodes that list was nearly all of each answer's bytes); UpdateLoadBalancer answers `{}`. GetLoadBalancer
 * and the admin state show the whole load balancer.
 */
export type EnsuredFakeLoadBalancer = Omit<FakeLoadBalancer, "nodes">;

export interface RouteRequest {
  readonly clusterName: string;
  readonly nameHint: string;
  readonly targetNode: string;
  readonly destinationCIDR: string;
}

export interface FakeRoute {
  readonly name: string;
  readonly clusterName: string;
  readonly targetNode: string;
  readonly destinationCIDR: string;
  readonly blackhole: boolean;
}
