/**
 * `node-route-controller` (upstream controllers/route, alias `route`): one cloud route per pod CIDR of
 * every Node, deletion of stale and blackholed routes inside `--cluster-cidr`, and the Nodes'
 * NetworkUnavailable condition.
 *
 * Scheduling, beyond upstream: the cloud's routes are listed once per `--route-reconciliation-period`
 * (the full reconcile, a safety net against drift), and Node changes that matter (add, delete, pod CIDRs,
 * addresses) reconcile at once against the view of the last listing plus our own changes, so reacting to
 * a Node costs no listing (upstream lists every 10 s; KEP-5237 lists on every Node event). Both kinds run
 * through one single-key queue, so they never overlap.
 */
import { ControllerConfigError, type ControllerContext, type ControllerFactory } from "../../app/context.ts";
import { enqueueOnChange } from "../../kube/handlers.ts";
import { WorkQueue } from "../../kube/queue.ts";
import { exponentialLimiter } from "../../kube/rate-limiters.ts";
import { runWorkers } from "../../kube/worker.ts";
import { shouldReconcileUpdatedNode, validateClusterCidrs } from "./predicates.ts";
import { RouteView } from "./route-view.ts";
import { reconcileRoutes, type RouteSyncDeps } from "./sync.ts";

export const ROUTE_QUEUE = "Routes";
const ROUTES_KEY = "routes";
/** A failed reconcile is retried from the view after 1 s, doubling up to one period. */
const RETRY_BASE_MS = 1_000;

interface Wiring {
  readonly ctx: ControllerContext;
  readonly queue: WorkQueue;
  readonly deps: RouteSyncDeps;
  /** Set by the period timer: the next reconcile lists the cloud's routes first. */
  listDue: boolean;
}

export const createNodeRouteController: ControllerFactory = (ctx) => {
  if (!ctx.config.configureCloudRoutes) return { skip: "--configure-cloud-routes=false" };
  const routes = ctx.provider.routes;
  if (!routes) return { skip: "the cloud provider does not support routes" };
  const problem = validateClusterCidrs(ctx.config.clusterCidrs);
  if (problem) throw new ControllerConfigError(problem);
  const periodMs = ctx.config.routeReconciliationPeriodMs;
  const queue = new WorkQueue({ name: ROUTE_QUEUE, rateLimiter: exponentialLimiter(Math.min(RETRY_BASE_MS, periodMs), periodMs), clock: ctx.clock, metrics: ctx.queueMetrics });
  const deps: RouteSyncDeps = {
    api: ctx.apiFor("route-controller"),
    nodes: ctx.informers.nodes(),
    routes,
    view: new RouteView(),
    clusterName: ctx.config.clusterName,
    clusterCidrs: ctx.config.clusterCidrs,
    recorder: ctx.events.recorder("route_controller"),
    logger: ctx.logger,
    clock: ctx.clock,
    metrics: ctx.metrics,
  };
  const wiring: Wiring = { ctx, queue, deps, listDue: true };
  ctx.informers.nodes().addHandler(enqueueOnChange(() => queue.add(ROUTES_KEY), shouldReconcileUpdatedNode));
  return { name: "node-route-controller", run: (signal) => run(wiring, signal) };
};

async function run(w: Wiring, signal: AbortSignal): Promise<void> {
  if (!(await w.ctx.informers.waitForSync(signal))) {
    w.queue.shutDown();
    return;
  }
  const fullReconcile = (): void => {
    w.listDue = true;
    w.queue.add(ROUTES_KEY);
  };
  fullReconcile();
  const timer = setInterval(fullReconcile, w.ctx.config.routeReconciliationPeriodMs);
  try {
    await runWorkers({ queue: w.queue, workers: 1, sync: () => reconcileOnce(w), logger: w.ctx.logger }, signal);
  } finally {
    clearInterval(timer);
  }
}

/** The listing flag is taken before the attempt: a failed listing waits for the next period. */
function reconcileOnce(w: Wiring): Promise<void> {
  const list = w.listDue;
  w.listDue = false;
  return reconcileRoutes(w.deps, list);
}
