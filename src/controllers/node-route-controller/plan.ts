/**
 * The route plan (upstream route controller `reconcile`): from the Nodes and the cloud's routes, which
 * routes to create and delete, and afterwards which NetworkUnavailable condition each Node gets. Pure:
 * `sync.ts` lists, calls these, and writes.
 */
import type { Route } from "../../cloud/provider.ts";
import type { Node, NodeCondition } from "../../kube/objects.ts";
import type { CIDR } from "../../net/ip.ts";
import { normalCIDR, podCIDRs, responsibleForRoute, sameAddresses } from "./predicates.ts";

/** keep: the route is in place; add: none yet; update: it points at old addresses (replace it). */
export type RouteAction = "keep" | "add" | "update";

export interface RouteToCreate {
  readonly node: Node;
  readonly cidr: string;
}

export interface RoutePlan {
  /** Per Node with pod CIDRs: the action for each of its CIDRs. */
  readonly actions: ReadonlyMap<string, ReadonlyMap<string, RouteAction>>;
  /** Nodes that some live route targets (for the condition of a Node that lost its pod CIDRs). */
  readonly routedNodes: ReadonlySet<string>;
  readonly deletes: readonly Route[];
  readonly creates: readonly RouteToCreate[];
}

/** Live (not blackholed) routes by target Node; routes without a target are not indexed. */
function indexRoutes(routes: readonly Route[]): Map<string, Route[]> {
  const byNode = new Map<string, Route[]>();
  for (const route of routes) {
    if (route.targetNode === "" || route.blackhole) continue;
    byNode.set(route.targetNode, [...(byNode.get(route.targetNode) ?? []), route]);
  }
  return byNode;
}

/**
 * Upstream `getRouteAction`. Addresses only matter for providers whose routes follow them
 * (`enableNodeAddresses`). A blackholed route counts as absent here, so the same pass deletes it and
 * creates its replacement (upstream keeps it for one more period).
 */
export function routeAction(node: Node, cidr: string, nodeRoutes: readonly Route[]): RouteAction {
  const route = nodeRoutes.find((r) => normalCIDR(r.destinationCIDR) === cidr);
  if (!route) return "add";
  if (!route.enableNodeAddresses || sameAddresses(node.status?.addresses, route.targetNodeAddresses)) return "keep";
  return "update";
}

/** Delete only inside the cluster CIDRs: blackholes, and routes no Node's pod CIDR wants as they are. */
export function shouldDeleteRoute(route: Route, actions: RoutePlan["actions"], clusterCidrs: readonly CIDR[]): boolean {
  if (!responsibleForRoute(route, clusterCidrs)) return false;
  if (route.blackhole) return true;
  const action = actions.get(route.targetNode)?.get(normalCIDR(route.destinationCIDR));
  return action === undefined || action === "update";
}

export function planRoutes(nodes: readonly Node[], routes: readonly Route[], clusterCidrs: readonly CIDR[]): RoutePlan {
  const byNode = indexRoutes(routes);
  const actions = new Map<string, Map<string, RouteAction>>();
  const creates: RouteToCreate[] = [];
  for (const node of nodes) {
    const cidrs = podCIDRs(node);
    if (cidrs.length === 0) continue;
    const perCidr = new Map(
      cidrs.map((cidr) => [cidr, routeAction(node, cidr, byNode.get(node.metadata.name) ?? [])] as const),
    );
    actions.set(node.metadata.name, perCidr);
    for (const [cidr, action] of perCidr) if (action !== "keep") creates.push({ node, cidr });
  }
  const deletes = routes.filter((route) => shouldDeleteRoute(route, actions, clusterCidrs));
  return { actions, routedNodes: new Set(byNode.keys()), deletes, creates };
}

export const CONDITION_NETWORK_UNAVAILABLE = "NetworkUnavailable";

export interface NetworkCondition {
  readonly status: "True" | "False";
  readonly reason: "RouteCreated" | "NoRouteCreated";
  readonly message: string;
}

const ROUTE_CREATED: NetworkCondition = {
  status: "False",
  reason: "RouteCreated",
  message: "RouteController created a route",
};
const NO_ROUTE_CREATED: NetworkCondition = {
  status: "True",
  reason: "NoRouteCreated",
  message: "RouteController failed to create a route",
};

/**
 * The condition a Node should carry once the creates are done (`created`: "node\0cidr" of the creates
 * that succeeded). Undefined: leave the Node alone (no pod CIDRs and no route).
 */
export function desiredCondition(
  node: Node,
  plan: RoutePlan,
  created: ReadonlySet<string>,
): NetworkCondition | undefined {
  const name = node.metadata.name;
  const actions = plan.actions.get(name);
  if (!actions) return plan.routedNodes.has(name) ? NO_ROUTE_CREATED : undefined;
  const allInPlace = [...actions].every(([cidr, action]) => action === "keep" || created.has(createdKey(name, cidr)));
  return allInPlace ? ROUTE_CREATED : NO_ROUTE_CREATED;
}

export function createdKey(nodeName: string, cidr: string): string {
  return `${nodeName}\u0000${cidr}`;
}

/** Write only when status or reason differ (the reason check lets us take over a CNI-set condition). */
export function needsConditionUpdate(node: Node, desired: NetworkCondition): boolean {
  const current = node.status?.conditions?.find((c) => c.type === CONDITION_NETWORK_UNAVAILABLE);
  return current?.status !== desired.status || current.reason !== desired.reason;
}

/** The condition as written; the transition time moves only when the status does. */
export function conditionFor(node: Node, desired: NetworkCondition, now: string): NodeCondition {
  const current = node.status?.conditions?.find((c) => c.type === CONDITION_NETWORK_UNAVAILABLE);
  const transition =
    current?.status === desired.status && current.lastTransitionTime ? current.lastTransitionTime : now;
  return { type: CONDITION_NETWORK_UNAVAILABLE, ...desired, lastHeartbeatTime: now, lastTransitionTime: transition };
}
