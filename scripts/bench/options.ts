/**
 * The benchmark's command line, parsed in one place: every problem is reported with the flag it names,
 * before anything is built or started.
 */
import { PLANS, type PlanName } from "./plan.ts";
import { SCENARIOS, type ScenarioName } from "./suite.ts";
import type { GoCloud, ManagerKind } from "./managers.ts";

export interface Options {
  readonly plan: PlanName;
  /** Results directory (default: bench/ for full, bench/big/ for big, dist/bench-quick/ for quick). */
  readonly out?: string;
  readonly only: ReadonlySet<ScenarioName>;
  /** Only this manager's runs (pieces of a long plan, each within a time limit). */
  readonly manager?: ManagerKind;
  /** Skip runs already in <out>/results.json; new ones are added to it. */
  readonly resume: boolean;
  /** Stop after this many measured runs (with --resume, the next invocation goes on from there). */
  readonly maxRuns?: number;
  readonly profile: boolean;
  readonly reportOnly: boolean;
  readonly oursBinary?: string;
  readonly goBinary?: string;
  readonly kwokBinary?: string;
  readonly qps?: number;
  readonly syncs?: number;
  readonly goCloud: GoCloud;
  /** Seconds: override the plan's Lease duration and heartbeat period of live Nodes. */
  readonly leaseSeconds?: number;
  readonly heartbeatSeconds?: number;
  /** `--controller-threads` values of the threads and mixed-cold-start scenarios, instead of the plan's. */
  readonly threads?: readonly number[];
  /** Write the offline bundle into this directory instead of running. */
  readonly pack?: string;
}

export const USAGE = `npm run bench -- [options]
  --plan quick|full|big   sizes (default full; --quick = --plan quick)
  --only a,b              scenarios: ${SCENARIOS.join(", ")}
  --manager ours|go       only one manager's runs
  --resume                skip runs already in <out>/results.json (add to it)
  --max-runs N            stop after N measured runs
  --out DIR               results directory
  --ours-binary PATH      prebuilt manager (default: build dist/cloud-controller-manager)
  --go-binary PATH        prebuilt Go reference (default: build and cache it)
  --kwok-binary PATH      prebuilt kwok (default: build and cache it)
  --qps N                 tuned --kube-api-qps (burst 2 N) for both managers
  --syncs N               tuned --concurrent-node-syncs and --concurrent-service-syncs
  --go-cloud shared|in-process   the Go reference's cloud (default shared, the same as ours)
  --lease-seconds N       live Nodes' Lease duration (renewed every N/4 s)
  --heartbeat-seconds N   live Nodes' status heartbeat period
  --threads 0,4,…         --controller-threads values of the threads and cold-start scenarios
  --profile               CPU and heap profiles of our manager per run
  --report                no runs: re-render results.md, plots and README tables from results.json
  --pack DIR              write an offline bundle (binaries and the bench) to DIR`;

type Parsed = { ok: true; options: Options } | { ok: false; error: string };

const VALUE_FLAGS = [
  "--plan",
  "--only",
  "--manager",
  "--max-runs",
  "--out",
  "--ours-binary",
  "--go-binary",
  "--kwok-binary",
  "--qps",
  "--syncs",
  "--go-cloud",
  "--lease-seconds",
  "--heartbeat-seconds",
  "--threads",
  "--pack",
];
const SWITCHES = ["--quick", "--resume", "--profile", "--report", "--help"];

/** argv → flag → value ("" for switches); the first unknown flag or missing value is the error. */
function split(argv: readonly string[]): Map<string, string> | string {
  const values = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    const eq = arg.indexOf("=");
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    if (SWITCHES.includes(flag) && eq < 0) values.set(flag, "");
    else if (!VALUE_FLAGS.includes(flag)) return `unknown option ${JSON.stringify(arg)} (see --help)`;
    else if (eq > 0) values.set(flag, arg.slice(eq + 1));
    else if (i + 1 < argv.length) values.set(flag, argv[++i] ?? "");
    else return `${flag} needs a value`;
  }
  return values;
}

function positive(values: Map<string, string>, flag: string, problems: string[]): number | undefined {
  const text = values.get(flag);
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n <= 0) problems.push(`${flag}: ${JSON.stringify(text)} is not a positive integer`);
  return n;
}

/** A comma-separated list of thread counts (0 = single-thread), in the order given. */
function threadCounts(values: Map<string, string>, problems: string[]): number[] | undefined {
  const text = values.get("--threads");
  if (text === undefined) return undefined;
  const counts = text.split(",").map(Number);
  if (!text || counts.some((n) => !Number.isInteger(n) || n < 0 || n > 64))
    problems.push(`--threads: ${JSON.stringify(text)} is not a list of thread counts from 0 to 64`);
  return counts;
}

function oneOf<T extends string>(
  values: Map<string, string>,
  flag: string,
  allowed: readonly T[],
  problems: string[],
): T | undefined {
  const text = values.get(flag);
  if (text === undefined) return undefined;
  if (!allowed.includes(text as T))
    problems.push(`${flag}: ${JSON.stringify(text)} is not one of ${allowed.join(", ")}`);
  return text as T;
}

function scenarios(values: Map<string, string>, problems: string[]): Set<ScenarioName> {
  const only = (values.get("--only") ?? "").split(",").filter(Boolean);
  const unknown = only.filter((s) => !SCENARIOS.includes(s as ScenarioName));
  if (unknown.length)
    problems.push(`--only: unknown scenario(s) ${unknown.join(", ")}; known: ${SCENARIOS.join(", ")}`);
  return new Set(only as ScenarioName[]);
}

export function parseOptions(argv: readonly string[]): Parsed {
  const values = split(argv);
  if (typeof values === "string") return { ok: false, error: values };
  if (values.has("--help")) return { ok: false, error: USAGE };
  const problems: string[] = [];
  const plan =
    oneOf(values, "--plan", Object.keys(PLANS) as PlanName[], problems) ?? (values.has("--quick") ? "quick" : "full");
  if (values.has("--quick") && plan !== "quick") problems.push(`--quick and --plan ${plan} disagree`);
  const options: Options = {
    plan,
    out: values.get("--out"),
    only: scenarios(values, problems),
    manager: oneOf(values, "--manager", ["ours", "go"] as const, problems),
    resume: values.has("--resume"),
    maxRuns: positive(values, "--max-runs", problems),
    profile: values.has("--profile"),
    reportOnly: values.has("--report"),
    oursBinary: values.get("--ours-binary"),
    goBinary: values.get("--go-binary"),
    kwokBinary: values.get("--kwok-binary"),
    qps: positive(values, "--qps", problems),
    syncs: positive(values, "--syncs", problems),
    goCloud: oneOf(values, "--go-cloud", ["shared", "in-process"] as const, problems) ?? "shared",
    leaseSeconds: positive(values, "--lease-seconds", problems),
    heartbeatSeconds: positive(values, "--heartbeat-seconds", problems),
    threads: threadCounts(values, problems),
    pack: values.get("--pack"),
  };
  return problems.length ? { ok: false, error: problems.join("\n") } : { ok: true, options };
}
