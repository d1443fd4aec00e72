import { describe, expect, test } from "bun:test";
import { parseOptions, USAGE } from "./options.ts";

const ok = (argv: readonly string[]): ReturnType<typeof parseOptions> & { ok: true } => {
  const parsed = parseOptions(argv);
  if (!parsed.ok) throw new Error(`expected ${argv.join(" ")} to parse: ${parsed.error}`);
  return parsed;
};

const error = (argv: readonly string[]): string => {
  const parsed = parseOptions(argv);
  if (parsed.ok) throw new Error(`expected ${argv.join(" ")} to be refused`);
  return parsed.error;
};

describe("parseOptions", () => {
  test("no flags: the full plan, the shared cloud, nothing prebuilt", () => {
    const { options } = ok([]);
    expect(options).toMatchObject({
      plan: "full",
      goCloud: "shared",
      resume: false,
      profile: false,
      reportOnly: false,
    });
    expect(options.only.size).toBe(0);
    expect(options.oursBinary).toBeUndefined();
    expect(options.qps).toBeUndefined();
  });

  test.each([
    { argv: ["--quick"], plan: "quick" },
    { argv: ["--plan", "big"], plan: "big" },
    { argv: ["--plan=quick", "--quick"], plan: "quick" },
  ])("$argv → plan $plan", ({ argv, plan }) => {
    expect(ok(argv).options.plan).toBe(plan);
  });

  test("values with a space or an equals sign, and every prebuilt binary", () => {
    const { options } = ok([
      "--ours-binary=bin/ccm",
      "--go-binary",
      "bin/ref-ccm",
      "--kwok-binary=bin/kwok",
      "--qps",
      "5000",
      "--syncs=50",
      "--only",
      "steady,loadBalancers",
      "--manager=go",
      "--resume",
      "--max-runs=3",
      "--go-cloud=in-process",
      "--lease-seconds=160",
      "--heartbeat-seconds",
      "600",
      "--out=somewhere",
      "--threads=0,4,8",
    ]);
    expect(options).toMatchObject({
      oursBinary: "bin/ccm",
      goBinary: "bin/ref-ccm",
      kwokBinary: "bin/kwok",
      qps: 5000,
      syncs: 50,
      manager: "go",
      resume: true,
      maxRuns: 3,
      goCloud: "in-process",
      leaseSeconds: 160,
      heartbeatSeconds: 600,
      out: "somewhere",
      threads: [0, 4, 8],
    });
    expect([...options.only]).toEqual(["steady", "loadBalancers"]);
  });

  test.each([
    { argv: ["--fast"], want: 'unknown option "--fast"' },
    { argv: ["--qps"], want: "--qps needs a value" },
    { argv: ["--qps=0"], want: '--qps: "0" is not a positive integer' },
    { argv: ["--syncs=1.5"], want: '--syncs: "1.5" is not a positive integer' },
    { argv: ["--plan=huge"], want: '--plan: "huge" is not one of quick, full, big' },
    { argv: ["--manager=both"], want: '--manager: "both" is not one of ours, go' },
    { argv: ["--go-cloud=remote"], want: '--go-cloud: "remote" is not one of shared, in-process' },
    { argv: ["--only=steady,warp"], want: "--only: unknown scenario(s) warp" },
    { argv: ["--quick", "--plan=big"], want: "--quick and --plan big disagree" },
    { argv: ["--resume=yes"], want: 'unknown option "--resume=yes"' },
    { argv: ["--threads=0,x"], want: '--threads: "0,x" is not a list of thread counts' },
    { argv: ["--threads="], want: '--threads: "" is not a list' },
    { argv: ["--threads=-1"], want: '--threads: "-1" is not a list' },
  ])("$argv is refused naming the flag", ({ argv, want }) => {
    expect(error(argv)).toContain(want);
  });

  test("every problem is reported together", () => {
    expect(error(["--qps=-1", "--plan=huge"]).split("\n")).toHaveLength(2);
  });

  test("--help answers with the usage, which names every option", () => {
    expect(error(["--help"])).toBe(USAGE);
    for (const flag of [
      "--ours-binary",
      "--go-binary",
      "--kwok-binary",
      "--qps",
      "--syncs",
      "--plan",
      "--pack",
      "--threads",
    ]) {
      expect(USAGE).toContain(flag);
    }
  });
});
