/** The shape of `bench/results.json`. */
import type { MachineDescription } from "./machine.ts";
import type { GoCloud, Limits, ManagerKind } from "./managers.ts";
import type { PlanName } from "./plan.ts";
import type { CeilingCase, CeilingResult } from "./scenarios/ceiling.ts";
import type { ColdStartCase, ColdStartResult } from "./scenarios/cold-start.ts";
import type { LbCase, LbResult } from "./scenarios/load-balancers.ts";
import type { NodeInitCase, NodeInitResult } from "./scenarios/node-init.ts";
import type { SteadyCase, SteadyResult } from "./scenarios/steady.ts";

/** One case measured for both managers (in alternating order); a run that failed carries its error. */
export interface Pair<C, R> {
  readonly case: C;
  readonly order: readonly ManagerKind[];
  go?: R;
  ours?: R;
  errors?: Partial<Record<ManagerKind, string>>;
}

export interface BenchResults {
  readonly plan: PlanName;
  readonly machine: MachineDescription;
  readonly settings: {
    readonly limits: { readonly defaults: Limits; readonly tuned: Limits };
    readonly apiserverArgs: readonly string[];
    /** Absent in results from before the cloud was shared: the Go reference's fake was in its process. */
    readonly goCloud?: GoCloud;
    readonly notes: readonly string[];
  };
  readonly nodeInit: Pair<NodeInitCase, NodeInitResult>[];
  readonly threads: { case: NodeInitCase; readonly runs: NodeInitResult[]; readonly errors: string[] };
  readonly loadBalancers: Pair<LbCase, LbResult>[];
  readonly steady: Pair<SteadyCase, SteadyResult>[];
  readonly ceiling: { readonly case: CeilingCase; result?: CeilingResult; error?: string }[];
  /** Absent in results from before the mixed cold start was measured. */
  coldStart?: Pair<ColdStartCase, ColdStartResult>[];
}
