/**
 * One route reconcile: read (the cloud's routes, or the view of them; the Nodes from the cache), plan
 * with `planRoutes`, delete then create (at most 200 cloud calls in flight, as upstream), then set each
 * Node's NetworkUnavailable condition where it changed.
 */
import type { Route, Routes } from "../../cloud/provider.ts";
import { NODES, type KubeApi } from "../../kube/api.ts";
import type { EventRecorder } from "../../kube/events.ts";
import type { Lister } from "../../kube/informer.ts";
import type { Node } from "../../kube/objects.ts";
import { retryOnConflict, type ConflictBackoff } from "../../kube/patch.ts";
import { isNotFound } from "../../kube/transport.ts";
import { errorMessage } from "../../kube/worker.ts";
import type { Logger } from "../../log/logger.ts";
import type { Metrics } from "../../metrics/metrics.ts";
import type { CIDR } from "../../net/ip.ts";
import { rfc3339, type Clock } from "../../util/clock.ts";
import { forEachLimited } from "../../util/concurrency.ts";
import {
  conditionFor,
  createdKey,
  desiredCondition,
  needsConditionUpdate,
  planRoutes,
  type RoutePlan,
  type RouteToCreate,
} from "./plan.ts";
import type { PendingConditions } from "./pending-conditions.ts";
import type { RouteView } from "./route-view.ts";

/** Upstream `maxConcurrentRouteOperations`. */
export const MAX_CONCURRENT_ROUTE_OPERATIONS = 200;
/** Upstream `updateNetworkConditionBackoff`: 5 steps from 100 ms. */
const CONDITION_RETRY: ConflictBackoff = { steps: 5, baseMs: 100 };

export interface RouteSyncDeps {
  readonly api: KubeApi;
  readonly nodes: Lister<Node>;
  readonly routes: Routes;
  readonly view: RouteView;
  readonly pending: PendingConditions;
  readonly clusterName: string;
  readonly clusterCidrs: readonly CIDR[];
  readonly recorder: EventRecorder;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly metrics: Metrics;
}

/**
 * `list`: ask the cloud for its routes first (the periodic full reconcile); otherwise plan from the view
 * (a Node changed). Throws after doing everything it could when some operation failed.
 */
export async function reconcileRoutes(deps: RouteSyncDeps, list: boolean): Promise<void> {
  if (list) {
    deps.metrics.routeSyncs.inc(); // as upstream: each sync with the cloud, counted before its listing
    deps.view.replace(await deps.routes.listRoutes(deps.clusterName));
  }
  const routes = deps.view.routes;
  if (!routes) return;
  const nodes = deps.nodes.list();
  const plan = planRoutes(nodes, routes, deps.clusterCidrs);
  const outcome: Outcome = { created: new Set(), failures: [] };
  await forEachLimited(plan.deletes, MAX_CONCURRENT_ROUTE_OPERATIONS, (route) => deleteRoute(deps, route, outcome));
  await forEachLimited(plan.creates, MAX_CONCURRENT_ROUTE_OPERATIONS, (want) => createRoute(deps, want, outcome));
  await forEachLimited(nodes, MAX_CONCURRENT_ROUTE_OPERATIONS, (node) => updateCondition(deps, node, plan, outcome));
  const { failures } = outcome;
  if (failures.length > 0) throw new Error(`${failures.length} route operation(s) failed, first: ${failures[0]}`);
}

interface Outcome {
  /** `createdKey(node, cidr)` of every route created in this pass. */
  readonly created: Set<string>;
  readonly failures: string[];
}

async function deleteRoute(deps: RouteSyncDeps, route: Route, { failures }: Outcome): Promise<void> {
  if (!deps.view.deletable(route)) {
    deps.logger.debug(
      `route ${route.destinationCIDR} to ${route.targetNode} is deleted after the next listing (the provider did not name it)`,
    );
    return;
  }
  try {
    await deps.routes.deleteRoute(deps.clusterName, route);
    deps.view.deleted(route);
    deps.logger.info(`deleted route ${route.name} ${route.destinationCIDR}${route.blackhole ? " (blackhole)" : ""}`);
  } catch (error) {
    failures.push(`delete route ${route.name} ${route.destinationCIDR}: ${errorMessage(error)}`);
  }
}

async function createRoute(deps: RouteSyncDeps, want: RouteToCreate, { created, failures }: Outcome): Promise<void> {
  const { node, cidr } = want;
  const name = node.metadata.name;
  const nameHint = node.metadata.uid ?? "";
  const route: Route = {
    name: "",
    targetNode: name,
    destinationCIDR: cidr,
    blackhole: false,
    targetNodeAddresses: node.status?.addresses ?? [],
  };
  const started = deps.clock.now();
  try {
    deps.view.created(route, await deps.routes.createRoute(deps.clusterName, nameHint, route));
    created.add(createdKey(name, cidr));
    deps.logger.info(`created route for node ${name} ${cidr} with hint ${nameHint}`);
  } catch (error) {
    const message = `Could not create route ${nameHint} ${cidr} for node ${name} after ${deps.clock.now() - started}ms: ${errorMessage(error)}`;
    deps.recorder.event(node, "Warning", "FailedToCreateRoute", message);
    failures.push(message);
  }
}

async function updateCondition(
  deps: RouteSyncDeps,
  node: Node,
  plan: RoutePlan,
  { created, failures }: Outcome,
): Promise<void> {
  const desired = desiredCondition(node, plan, created);
  // The pass's snapshot may predate our own write of the condition, shown by the cache meanwhile.
  const latest = deps.nodes.get(node.metadata.name);
  if (!desired || !latest || latest.metadata.uid !== node.metadata.uid) return;
  if (!needsConditionUpdate(latest, desired) || deps.pending.covers(latest, desired)) return;
  const patch = { status: { conditions: [conditionFor(latest, desired, rfc3339(deps.clock.now()))] } };
  try {
    const written = await retryOnConflict(
      () => deps.api.patchVersion(NODES, node.metadata.name, patch, { subresource: "status", type: "strategic" }),
      CONDITION_RETRY,
    );
    deps.pending.wrote(latest, written, desired);
  } catch (error) {
    if (!isNotFound(error))
      failures.push(`set NetworkUnavailable on node ${node.metadata.name}: ${errorMessage(error)}`);
  }
}
