/**
 * Live Nodes: kwok (sigs.k8s.io/kwok, built once from the Go module proxy and cached like kube-apiserver)
 * renews a Lease for every benchmark Node and posts its status heartbeat, as kubelet does, so that the
 * managers' Node informers see the stream a real cluster sends them.
 *
 * kwok runs as the admin identity, manages only Nodes with the `kwok.x-k8s.io/node: fake` annotation, and
 * gets one stage of our own: the heartbeat, a strategic-merge status patch of the four conditions kubelet
 * owns (Ready and the three pressures) with a new lastHeartbeatTime. It never touches the uninitialized
 * taint, the providerID, the addresses or NetworkUnavailable (the route controller's condition), so it
 * serves the node, load-balancer and route scenarios alike. Each Node's next heartbeat is due one period
 * after its last one (read from its Ready condition), so Nodes created with spread-out heartbeat times
 * keep a steady rate of N / period from the start, and the managers' own writes do not move the schedule.
 */
import { closeSync, openSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { cacheRoot, goBuild } from "../control-plane/binaries.ts";
import { terminate } from "../control-plane/control-plane.ts";
import { ProcSampler } from "./proc-stats.ts";
import { rfc3339 } from "../../src/util/clock.ts";

export const KWOK_VERSION = "v0.8.0";
export const KWOK_ANNOTATION = "kwok.x-k8s.io/node";
export const KWOK_ANNOTATION_VALUE = "fake";
const MODULE_DIR = join(import.meta.dir, "go", "kwok");

export async function ensureKwok(log: (line: string) => void): Promise<string> {
  const dir = join(cacheRoot(), `kwok-${KWOK_VERSION}`);
  return goBuild(log, dir, {
    module: "kwok",
    moduleDir: MODULE_DIR,
    pkg: "sigs.k8s.io/kwok/cmd/kwok",
    output: "kwok",
    ldflags: "-s -w",
  });
}

export interface LiveNodes {
  /** `--node-lease-duration-seconds`: kwok renews each Lease every quarter of it (kubelet: 40 s). */
  readonly leaseSeconds: number;
  /** Seconds between two status heartbeats of one Node (kubelet with leases: 300, its status report period). */
  readonly heartbeatSeconds: number;
}

/**
 * Kubelet's four conditions, in its order and with its messages: the bench's Nodes are created with them
 * (objects.ts) and the heartbeat posts the same, so that it changes only their times, as a kubelet's does.
 */
export const KUBELET_CONDITIONS = [
  ["MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"],
  ["DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"],
  ["PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"],
  ["Ready", "True", "KubeletReady", "kubelet is posting ready status"],
] as const;

/** The field manager kwok's writes are tracked under in an object's managed fields. */
export const KWOK_FIELD_MANAGER = "kwok";

/** One heartbeat at `time`: the strategic-merge status patch the stage's template posts. */
export function heartbeatPatch(time: string): object {
  const conditions = KUBELET_CONDITIONS.map(([type, status, reason, message]) => ({
    type,
    status,
    reason,
    message,
    lastHeartbeatTime: time,
  }));
  return { status: { conditions } };
}

const READY = `.status.conditions.[] | select( .type == "Ready" )`;

/** The time `seconds` after a Node's last heartbeat (kwok waits until then). */
const dueIn = (seconds: number): string => `${READY} | .lastHeartbeatTime | fromdate + ${seconds} | todate`;

/** kwok's configuration: parallelism options and the heartbeat stage. */
export function kwokConfig(live: LiveNodes): string {
  const template = [
    "{{ $now := Now }}",
    "conditions:",
    ...KUBELET_CONDITIONS.flatMap(([type, status, reason, message]) => [
      `- type: ${type}`,
      `  status: "${status}"`,
      `  reason: ${reason}`,
      `  message: ${message}`,
      "  lastHeartbeatTime: {{ $now | Quote }}",
    ]),
  ].join("\n");
  const options = { nodeLeaseParallelism: 16, nodePlayStageParallelism: 16 };
  const stage = {
    apiVersion: "kwok.x-k8s.io/v1alpha1",
    kind: "Stage",
    metadata: { name: "bench-node-heartbeat" },
    spec: {
      resourceRef: { apiGroup: "v1", kind: "Node" },
      selector: { matchExpressions: [{ key: `${READY} | .status`, operator: "In", values: ["True"] }] },
      // Up to a second later than due: a heartbeat time has whole seconds, so without it every Node due in
      // one second would beat at its start, together; a kubelet beats on a timer of its own.
      delay: {
        durationMilliseconds: live.heartbeatSeconds * 1000,
        durationFrom: { jq: { expression: dueIn(live.heartbeatSeconds) } },
        jitterDurationMilliseconds: (live.heartbeatSeconds + 1) * 1000,
        jitterDurationFrom: { jq: { expression: dueIn(live.heartbeatSeconds + 1) } },
      },
      next: { statusTemplate: template },
    },
  };
  const configuration = { apiVersion: "config.kwok.x-k8s.io/v1alpha1", kind: "KwokConfiguration", options };
  return `${JSON.stringify(configuration)}\n---\n${JSON.stringify(stage)}\n`;
}

/** When Node `i` of `count` last sent its heartbeat, so that a cluster's heartbeats spread over one period. */
export function lastHeartbeat(i: number, count: number, heartbeatSeconds: number, now = Date.now()): string {
  const spread = ((i % count) / Math.max(1, count)) * heartbeatSeconds * 1000;
  return rfc3339(now - spread);
}

export interface RunningKwok {
  readonly pid: number;
  readonly sampler: ProcSampler;
  stop(): Promise<void>;
}

export function startKwok(binary: string, kubeconfig: string, dir: string, live: LiveNodes): RunningKwok {
  const config = join(dir, "kwok.yaml");
  writeFileSync(config, kwokConfig(live));
  const log = openSync(join(dir, "kwok.log"), "a");
  const proc: Subprocess = Bun.spawn(
    [
      binary,
      `--config=${config}`,
      `--kubeconfig=${kubeconfig}`,
      "--manage-all-nodes=false",
      `--manage-nodes-with-annotation-selector=${KWOK_ANNOTATION}=${KWOK_ANNOTATION_VALUE}`,
      `--node-lease-duration-seconds=${live.leaseSeconds}`,
      // Every Lease renewal is an INFO line: 10,000 lines a second at 100,000 Nodes.
      "--v=WARN",
    ],
    { stdout: log, stderr: log },
  );
  closeSync(log);
  const sampler = new ProcSampler(proc.pid);
  return {
    pid: proc.pid,
    sampler,
    async stop() {
      sampler.stop();
      await terminate(proc, 5000);
    },
  };
}
