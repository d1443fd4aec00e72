/**
 * With the pools in each host's cloud-config file and leader election on, two replicas may hold different
 * files (one host edited, the other forgotten). The leader records a hash of the pools it allocates from
 * on the leader-election Lease; a new leader whose pools hash differently refuses to move any allocated
 * address (the allocator's move guard), says so in `/readyz` and `cloudprovider_configuration_drift`,
 * until its file agrees again (a live edit) or an operator removes the annotation to accept its pools.
 * A leader that edits its own pools while in agreement records the new hash: that edit is the operator's.
 */
import { createHash } from "node:crypto";
import { LEASES, type KubeApi } from "../../../src/kube/api.ts";
import type { Lease } from "../../../src/kube/objects.ts";
import { errorMessage } from "../../../src/kube/worker.ts";
import type { Logger } from "../../../src/log/logger.ts";
import { GROUP } from "../crd.ts";
import type { Pool } from "./pools.ts";

export const POOLS_HASH_ANNOTATION = `${GROUP}/address-pools-hash`;

/** Names and ranges, in name order: equal for pool sets that count the same addresses as in a pool. */
export function poolsHash(pools: readonly Pool[]): string {
  const text = [...pools]
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((p) => `${p.name}[${p.ranges.map((r) => `${r.first}-${r.last}`).join(",")}]`)
    .join(" ");
  return createHash("sha256").update(text).digest("hex").slice(0, 16);
}

/** What the leader does about the recorded hash: nothing, record its own, or refuse moves. */
export type GuardDecision = { kind: "agree" } | { kind: "record" } | { kind: "refuse"; reason: string };

/**
 * Pure: `recorded` is the Lease's annotation, `mine` this replica's hash, `written` what this replica last
 * recorded itself (its own live edit is no disagreement).
 */
export function decideGuard(recorded: string | undefined, mine: string, written: string | undefined): GuardDecision {
  if (recorded === mine) return { kind: "agree" };
  if (recorded === undefined || recorded === written) return { kind: "record" };
  return {
    kind: "refuse",
    reason:
      `this replica's address pools (hash ${mine}) differ from those the previous leader allocated from ` +
      `(hash ${recorded}); allocated addresses are kept and none is moved: make every replica's cloud-config ` +
      `list the same pools, or remove the annotation ${POOLS_HASH_ANNOTATION} from the leader-election Lease ` +
      "to accept this replica's pools",
  };
}

export interface ConfigGuardDeps {
  readonly kube: KubeApi;
  readonly lease: { readonly namespace: string; readonly name: string };
  /** The hash of the pools in force now (a live edit changes it). */
  readonly hash: () => string;
  readonly logger: Logger;
  readonly observeDrift?: (drifting: boolean) => void;
  readonly intervalMs?: number;
}

export interface ConfigGuard {
  /** Set while moves are refused: the reason. */
  reason(): string | undefined;
  /** Checks now, then every `intervalMs` until `signal` aborts; resolves after the first check. */
  start(signal: AbortSignal): Promise<void>;
}

const CHECK_INTERVAL_MS = 10_000;

export function createConfigGuard(deps: ConfigGuardDeps): ConfigGuard {
  let reason: string | undefined;
  let written: string | undefined;
  const target = { namespace: deps.lease.namespace };

  async function check(signal: AbortSignal): Promise<void> {
    const lease = await deps.kube.get<Lease>(LEASES, deps.lease.name, { ...target, signal });
    const mine = deps.hash();
    const decision = decideGuard(lease.metadata.annotations?.[POOLS_HASH_ANNOTATION], mine, written);
    if (decision.kind === "record") {
      const patch = { metadata: { annotations: { [POOLS_HASH_ANNOTATION]: mine } } };
      await deps.kube.patch<Lease>(LEASES, deps.lease.name, patch, { ...target, type: "merge", signal });
      written = mine;
    }
    const next = decision.kind === "refuse" ? decision.reason : undefined;
    if (next !== reason) {
      if (next) deps.logger.warn(`address moves refused: ${next}`);
      else if (reason) deps.logger.info(`address pools agree with the previous leader's again (hash ${mine})`);
    }
    reason = next;
    deps.observeDrift?.(reason !== undefined);
  }

  let compared = false;
  const checkLogged = (signal: AbortSignal): Promise<void> =>
    check(signal).then(
      () => {
        compared = true;
      },
      (error: unknown) => {
        if (signal.aborted) return;
        const why = `cannot compare the address pools with the previous leader's: ${errorMessage(error)}`;
        deps.logger.warn(why);
        // Never compared: moves stay refused until a comparison says they agree.
        if (!compared) reason = why;
        deps.observeDrift?.(reason !== undefined);
      },
    );

  return {
    reason: () => reason,
    async start(signal) {
      await checkLogged(signal);
      const timer = setInterval(() => void checkLogged(signal), deps.intervalMs ?? CHECK_INTERVAL_MS);
      signal.addEventListener("abort", () => clearInterval(timer), { once: true });
    },
  };
}
