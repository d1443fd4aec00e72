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
 *
 * Threads: whole-cluster. A reconcile compares every Node with the whole route table, so it cannot be
 * split by key; the controller runs on thread 0 alone (app/threads/plan.ts).
 */
import { WorkQueue } from "../../kube/queue.ts";
import { exponentialLimiter } from "../../kube/rate-limiters.ts";
import { runWorkers } from "../../kube/worker.ts";
import { CONTROLLERS } from "../../names/controllers.ts";
import { ControllerConfigError, type ControllerFactory, type Wiring } from "../context.ts";
import { shouldReconcileUpdatedNode, validateClusterCidrs } from "./predicates.ts";
import { PendingConditions } from "./pending-conditions.ts";
import { RouteView } from "./route-view.ts";
import { reconcileRoutes, type RouteSyncDeps } from "./sync.ts";

const ID = "node-route-controller";
const NAMES = CONTROLLERS[ID];
const ROUTES_KEY = "routes";
/**
 * A failed reconcile is retried from the view after 1 s, doubling while that is shorter than a period;
 * after that only the period's own reconcile tries again, once a period as upstream's does (a route the
 * cloud keeps refusing costs one CreateRoute call and one event a period, not two).
 */
const RETRY_BASE_MS = 1_000;

/** How many retries of a failing reconcile come before the period's: those whose delay is under it. */
export function fastRetries(baseMs: number, periodMs: number): number {
  let retries = 0;
  for (let delay = baseMs; delay < periodMs; delay *= 2) retries++;
  return retries;
}

type Queues = { readonly routes: WorkQueue };

export const nodeRouteController: ControllerFactory = (ctx) => {
  if (!ctx.config.configureCloudRoutes) return { skip: "--configure-cloud-routes=false" };
  const routes = ctx.provider.routes;
  if (!routes) return { skip: "the cloud provider does not support routes" };
  const problem = validateClusterCidrs(ctx.config.clusterCidrs);
  if (problem) throw new ControllerConfigError(problem);
  const periodMs = ctx.config.routeReconciliationPeriodMs;
  const rateLimiter = exponentialLimiter(Math.min(RETRY_BASE_MS, periodMs), periodMs);
  const queues: Queues = {
    routes: new WorkQueue({ name: NAMES.queues.routes, rateLimiter, clock: ctx.clock, metrics: ctx.queueMetrics }),
  };
  const deps: RouteSyncDeps = {
    api: ctx.api,
    nodes: ctx.informers.nodes(),
    routes,
    view: new RouteView(),
    pending: new PendingConditions(ctx.clock, periodMs),
    clusterName: ctx.config.clusterName,
    clusterCidrs: ctx.config.clusterCidrs,
    recorder: ctx.recorder,
    logger: ctx.logger,
    clock: ctx.clock,
    metrics: ctx.metrics,
  };
  const wiring: Wiring<RouteSyncDeps, Queues> = { ctx, deps, queues };
  return { name: ID, run: (signal) => run(wiring, signal) };
};

async function run(w: Wiring<RouteSyncDeps, Queues>, signal: AbortSignal): Promise<void> {
  const { ctx, deps, queues } = w;
  const periodMs = ctx.config.routeReconciliationPeriodMs;
  const enqueue = (): void => queues.routes.add(ROUTES_KEY);
  const removeHandlers = ctx.informers.nodes().addHandler({
    add: enqueue,
    update: (old, node) => {
      deps.pending.seen(node);
      if (shouldReconcileUpdatedNode(old, node)) enqueue();
    },
    delete: (node) => {
      deps.pending.forget(node);
      enqueue();
    },
  });
  // Set by the period timer: the next reconcile lists the cloud's routes first. Taken before the attempt,
  // so a failed listing waits for the next period.
  let listDue = true;
  const fullReconcile = (): void => {
    listDue = true;
    queues.routes.add(ROUTES_KEY);
  };
  const reconcileOnce = (): Promise<void> => {
    const list = listDue;
    listDue = false;
    return reconcileRoutes(deps, list);
  };
  let timer: ReturnType<typeof setInterval> | undefined;
  try {
    if (!(await ctx.informers.waitForSync(signal))) return;
    fullReconcile();
    timer = setInterval(fullReconcile, periodMs);
    const retries = fastRetries(Math.min(RETRY_BASE_MS, periodMs), periodMs);
    const requeue = (key: string): void => {
      if (queues.routes.numRequeues(key) < retries) queues.routes.addRateLimited(key);
    };
    await runWorkers({ queue: queues.routes, workers: 1, sync: reconcileOnce, requeue, logger: ctx.logger }, signal);
  } finally {
    clearInterval(timer);
    removeHandlers();
    queues.routes.shutDown();
  }
}
