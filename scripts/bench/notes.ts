/** How each figure is taken: the "How it was measured" list of results.md, stored with the results. */
import { APISERVER_ARGS } from "./cluster.ts";
import { KWOK_VERSION } from "./kwok.ts";
import { DEFAULT_LIMITS, type GoCloud, type Limits } from "./managers.ts";

function limitsNote(tuned: Limits): string {
  const d = DEFAULT_LIMITS;
  return [
    `Upstream defaults: QPS ${d.qps}, burst ${d.burst}, ${d.nodeSyncs} node worker, ${d.serviceSyncs} service worker.`,
    `Tuned, equal for both: QPS ${tuned.qps}, burst ${tuned.burst}, --concurrent-node-syncs=${tuned.nodeSyncs},`,
    `--concurrent-service-syncs=${tuned.serviceSyncs}. Ours batches cloud lookups (up to 100 nodes per call; a node`,
    "worker takes up to a batch of keys); the Go reference asks once per node.",
  ].join(" ");
}

function cloudNote(goCloud: GoCloud): string {
  const shared = [
    "One cloud for both: the fake cloud runs in a process of its own (`cloud-controller-manager fake-cloud`) and",
    "both managers reach it over loopback HTTP with the same protocol (the Go reference through a small client",
    "of that protocol, scripts/bench/go/ref-ccm/wire.go); every call waits the stated latency in the cloud.",
    "The cloud counts the calls; its CPU is neither manager's.",
  ];
  const inProcess = [
    "Cloud: ours talks over loopback HTTP to the fake cloud process; the Go reference carries upstream's fake",
    "(k8s.io/cloud-provider/fake) in its process (--go-cloud in-process), wrapped to count calls, to wait the",
    "latency once per call and to lock load-balancer calls (the fake's map has no lock).",
  ];
  return (goCloud === "shared" ? shared : inProcess).join(" ");
}

export function notes(tuned: Limits, goCloud: GoCloud): string[] {
  return [
    "Both managers run as the same user, `system:cloud-controller-manager` (client certificate), bound to this project's RBAC plus one extra ClusterRole for the Go reference, whose controllers write with full updates where ours patch (update on nodes, nodes/status, services/status, events).",
    limitsNote(tuned),
    cloudNote(goCloud),
    "Every run gets a fresh kube-apiserver + etcd (`" +
      APISERVER_ARGS.join(" ") +
      "` for all). Objects are created before the manager starts; the clock runs from the manager's start.",
    "Node initialisation: Nodes registered as kubelet does (uninitialized taint, only a Hostname address, capacity, node info, images) with Ready=True, so neither lifecycle controller asks the cloud about them; no podCIDRs and --configure-cloud-routes=false for both, so no route controller runs. A Node counts as initialised once its taint is gone and its providerID and the cloud's InternalIP are in place (both managers patch the addresses right after removing the taint).",
    "API requests: the API server's audit log, every request of that user, counted until the manager had sent nothing for 2 s after the work (both send Events in the background, after the work they report). Refused requests (429, 409) are counted and listed.",
    "CPU seconds: utime + stime of the manager's process (all threads) from its start until the work was done and quiet (by thread in the threads table: the main thread, the controller threads together, the JIT compilers, the garbage collector's helpers, the rest, from /proc/<pid>/task at that moment); peak RSS: VmHWM. The fake cloud's CPU is in neither (with --go-cloud in-process, the Go reference's includes its fake).",
    "Load balancers: Services exist before the start on a cluster of initialised Ready Nodes; then one Node gets node.kubernetes.io/exclude-from-external-load-balancers and the clock runs until the cloud has seen one UpdateLoadBalancer per Service.",
    `Steady state: initialised Nodes and LoadBalancer Services, tuned limits to get there; once every Service has ingress (and every route exists, where routes are on) and the manager has been quiet for 5 s (with routes on live Nodes, also one heartbeat period after the last route: each Node's next heartbeat reorders its conditions once, after the route controller's first write), CPU and RSS are read every minute. Live Nodes: kwok ${KWOK_VERSION} renews each Node's Lease (every quarter of the stated Lease duration, as kubelet) and posts its status heartbeat once per heartbeat period, spread evenly over the period, so the managers' Node informers see N / period updates per second throughout. Each live Node is created as one of an established cluster, its last heartbeat already posted as kwok with kubelet's own condition messages, so that kwok's next one changes only times, as a long-running kubelet's does. A window of 5 minutes holds the periodic address refresh of every Node (--node-status-update-frequency=5m, the default).`,
    "Burst: after the window, new Nodes are registered at once on the live cluster (live themselves) and timed from the first create until every one is initialised; the burst on an empty cluster (0 Nodes) is the reference.",
    "Mixed cold start: Nodes registered as kubelet does, with pod CIDRs, and LoadBalancer Services exist before the start; both managers run with --configure-cloud-routes=true and the bench's --cluster-cidr, tuned limits. The clock runs until every Node is initialised, every Service has ingress and the cloud has answered one CreateRoute per Node (each part timed on its own too; the cloud's route table is checked afterwards). Our manager runs again at each --controller-threads value of the plan; the Go reference once.",
    "Ceiling: the writes that initialise a Node (Node patch, status patch, Event) sent by a minimal unthrottled client as the same user, 128 Nodes in flight (the Event alongside the two patches), no cache and no cloud.",
  ];
}
