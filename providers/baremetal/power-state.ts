/**
 * What a BMC's answer means for a Node: the pure part of the Redfish lookup. Only two answers are facts
 * about the machine: a ComputerSystem with a known `PowerState`, and HTTP 404 on the system resource (the
 * BMC says the system does not exist). Everything else (no answer, a timeout, 5xx, refused credentials,
 * an unreadable body) is "unknown": an error for that node, which never deletes it and never taints it.
 */
import type { InstanceState } from "../../src/cloud/provider.ts";

/** One GET of the system resource: its HTTP status and, for a 200, the `PowerState` it carried. */
export type RedfishReply =
  | { readonly status: number; readonly powerState?: unknown }
  /** No HTTP answer at all: connection refused, TLS failure, timeout. */
  | { readonly failure: string };

export type PowerVerdict =
  | { readonly kind: "running"; readonly powerState: string }
  | { readonly kind: "shutdown" }
  /** HTTP 404: the BMC answers and has no such system. */
  | { readonly kind: "gone" }
  | { readonly kind: "unknown"; readonly reason: string };

/**
 * Redfish `PowerState` values that mean the machine runs (or is about to). `PoweringOff` is still running:
 * the next look sees `Off`. `Paused` is powered and holds its workloads' memory.
 */
const RUNNING = ["On", "PoweringOn", "PoweringOff", "Paused"];

export function judgePower(reply: RedfishReply): PowerVerdict {
  if ("failure" in reply) return { kind: "unknown", reason: `no answer: ${reply.failure}` };
  const { status, powerState } = reply;
  if (status === 404) return { kind: "gone" };
  if (status === 401 || status === 403)
    return { kind: "unknown", reason: `HTTP ${status}: the BMC refused the credentials` };
  if (status !== 200) return { kind: "unknown", reason: `HTTP ${status}` };
  if (powerState === "Off") return { kind: "shutdown" };
  if (typeof powerState === "string" && RUNNING.includes(powerState)) return { kind: "running", powerState };
  return { kind: "unknown", reason: `unrecognised PowerState ${JSON.stringify(powerState ?? null)}` };
}

/**
 * The instance state a verdict stands for; "unknown" throws (a plain error: "could not find out", which
 * the lifecycle controller answers by doing nothing for that node).
 */
export function stateFromPower(verdict: PowerVerdict, what: string): InstanceState {
  switch (verdict.kind) {
    case "running":
      return { exists: true, shutdown: false };
    case "shutdown":
      return { exists: true, shutdown: true };
    case "gone":
      return { exists: false };
    case "unknown":
      throw new Error(`cannot tell the power state of ${what}: ${verdict.reason}`);
  }
}
