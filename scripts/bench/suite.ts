/**
 * Runs a plan: every case for both managers in the same invocation, the order alternating from case to
 * case so that slow phases of the machine hit both. A failed run is recorded and the suite goes on.
 * `save` is called after every run, so an interrupted suite leaves its results so far.
 */
import { APISERVER_ARGS } from "./cluster.ts";
import type { MachineDescription } from "./machine.ts";
import { DEFAULT_LIMITS, TUNED_LIMITS, type ManagerKind } from "./managers.ts";
import type { BenchPlan } from "./plan.ts";
import type { BenchResults, Pair } from "./results.ts";
import { runCeiling } from "./scenarios/ceiling.ts";
import { runLoadBalancers } from "./scenarios/load-balancers.ts";
import { runNodeInit } from "./scenarios/node-init.ts";
import { runSteady } from "./scenarios/steady.ts";
import type { BenchContext } from "./run.ts";

export type ScenarioName = "nodeInit" | "threads" | "loadBalancers" | "steady" | "ceiling";
export const SCENARIOS: readonly ScenarioName[] = ["ceiling", "nodeInit", "loadBalancers", "threads", "steady"];

export const NOTES: readonly string[] = [
  "Both managers run as the same user, `system:cloud-controller-manager` (client certificate), bound to this project's RBAC plus one extra ClusterRole for the Go reference, whose controllers write with full updates where ours patch (update on nodes, nodes/status, services/status, events).",
  `Upstream defaults: QPS ${DEFAULT_LIMITS.qps}, burst ${DEFAULT_LIMITS.burst}, ${DEFAULT_LIMITS.nodeSyncs} node worker, ${DEFAULT_LIMITS.serviceSyncs} service worker. Tuned, equal for both: QPS ${TUNED_LIMITS.qps}, burst ${TUNED_LIMITS.burst}, --concurrent-node-syncs=${TUNED_LIMITS.nodeSyncs}, --concurrent-service-syncs=${TUNED_LIMITS.serviceSyncs}. Ours batches cloud lookups (up to 100 nodes per call; a node worker takes up to a batch of keys); the Go reference asks once per node.`,
  "Cloud latency: every cloud call waits the stated time in both fakes. Ours talks over loopback HTTP to the fake cloud served from the benchmark process; the Go reference carries upstream's fake (k8s.io/cloud-provider/fake) in its process, wrapped to count calls, to wait the latency once per call and to lock load-balancer calls (the fake's map has no lock).",
  "Every run gets a fresh kube-apiserver + etcd (`" +
    APISERVER_ARGS.join(" ") +
    "` for all). Objects are created before the manager starts; the clock runs from the manager's start.",
  "Node initialisation: Nodes registered as kubelet does (uninitialized taint, only a Hostname address, capacity, node info, images) with Ready=True, so neither lifecycle controller asks the cloud about them; no podCIDRs and --configure-cloud-routes=false for both, so no route controller runs. A Node counts as initialised once its taint is gone and its providerID and the cloud's InternalIP are in place (both managers patch the addresses right after removing the taint).",
  "API requests: the API server's audit log, every request of that user, counted until the manager had sent nothing for 2 s after the work (both send Events in the background, after the work they report). Refused requests (429, 409) are counted and listed.",
  "CPU seconds: utime + stime of the manager's process (all threads) from its start until the work was done and quiet; peak RSS: VmHWM. For the Go reference both include its in-process fake cloud; our fake cloud runs in the benchmark process.",
  "Load balancers: Services exist before the start on a cluster of initialised Ready Nodes; then one Node gets node.kubernetes.io/exclude-from-external-load-balancers and the clock runs until the cloud has seen one UpdateLoadBalancer per Service.",
  "Steady state: initialised Nodes and LoadBalancer Services, tuned limits to get there; once every Service has ingress and the manager has been quiet for 5 s, CPU and RSS are read every minute. The window holds the periodic address refresh of every Node (--node-status-update-frequency=5m, the default).",
  "Ceiling: the writes that initialise a Node (Node patch, status patch, Event) sent by a minimal unthrottled client as the same user, 128 Nodes in flight (the Event alongside the two patches), no cache and no cloud.",
];

function orderFor(index: number): ManagerKind[] {
  return index % 2 === 0 ? ["ours", "go"] : ["go", "ours"];
}

export interface SuiteRun {
  readonly ctx: BenchContext;
  readonly plan: BenchPlan;
  readonly only: ReadonlySet<ScenarioName>;
  readonly results: BenchResults;
  /** Called after every run. */
  readonly save: () => void;
}

async function pairs<C, R>(
  s: SuiteRun,
  cases: readonly C[],
  run: (c: C, m: ManagerKind) => Promise<R>,
  into: Pair<C, R>[],
): Promise<void> {
  for (const [i, c] of cases.entries()) {
    const pair: Pair<C, R> = { case: c, order: orderFor(into.length + i) };
    into.push(pair);
    for (const manager of pair.order) {
      try {
        pair[manager] = await run(c, manager);
      } catch (error) {
        pair.errors = { ...pair.errors, [manager]: (error as Error).message };
        s.ctx.log(`run failed (${manager}): ${(error as Error).message}`);
      }
      s.save();
    }
  }
}

export function emptyResults(plan: BenchPlan, machine: MachineDescription): BenchResults {
  return {
    plan: plan.name,
    machine,
    settings: {
      limits: { defaults: DEFAULT_LIMITS, tuned: TUNED_LIMITS },
      apiserverArgs: APISERVER_ARGS,
      notes: NOTES,
    },
    nodeInit: [],
    threads: { case: plan.threads.case, runs: [], errors: [] },
    loadBalancers: [],
    steady: [],
    ceiling: [],
  };
}

export async function runSuite(s: SuiteRun): Promise<void> {
  const { ctx, plan, only, results, save } = s;
  const wanted = (s: ScenarioName): boolean => only.size === 0 || only.has(s);
  if (wanted("ceiling")) {
    for (const c of plan.ceiling) {
      const entry: BenchResults["ceiling"][number] = { case: c };
      results.ceiling.push(entry);
      try {
        entry.result = await runCeiling(ctx, c);
      } catch (error) {
        entry.error = (error as Error).message;
      }
      save();
    }
  }
  if (wanted("nodeInit")) await pairs(s, plan.nodeInit, (c, m) => runNodeInit(ctx, c, m), results.nodeInit);
  if (wanted("loadBalancers"))
    await pairs(s, plan.loadBalancers, (c, m) => runLoadBalancers(ctx, c, m), results.loadBalancers);
  if (wanted("threads")) {
    for (const threads of plan.threads.threads) {
      try {
        results.threads.runs.push(await runNodeInit(ctx, plan.threads.case, "ours", { threads }));
      } catch (error) {
        results.threads.errors.push(`--controller-threads=${threads}: ${(error as Error).message}`);
      }
      save();
    }
  }
  if (wanted("steady")) await pairs(s, plan.steady, (c, m) => runSteady(ctx, c, m), results.steady);
}
