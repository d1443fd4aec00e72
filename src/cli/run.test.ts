import { describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "./cli.ts";
import { builtins, subCommands } from "../builtins.ts";

async function run(argv: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const io = { env, stdout: (t: string) => void (out += t), stderr: (t: string) => void (err += t), signal: new AbortController().signal, hostname: "test", workerUrl: "" };
  const code = await runCli(argv, io, builtins(), subCommands());
  return { code, out, err };
}

describe("start-up rejects bad input with status 2, one line per problem, before anything starts", () => {
  const dir = mkdtempSync(join(tmpdir(), "ccm-run-"));
  const badCloud = join(dir, "cloud.yaml");
  writeFileSync(badCloud, "faults: { latency: soon }\ninstances: [{ name: '' }]\n");

  const cases: { name: string; argv: string[]; env?: Record<string, string>; want: string[] }[] = [
    {
      name: "routes on with the fake provider and no --cluster-cidr, unreadable kubeconfig",
      argv: ["--cloud-provider=fake", "--kubeconfig=/does/not/exist"],
      want: [
        'error: invalid value "" for flag --cluster-cidr: the node-route-controller needs the cluster\'s pod CIDR range(s); set it, or turn routes off with --configure-cloud-routes=false',
        'error: invalid --kubeconfig "/does/not/exist": ENOENT: no such file or directory, open \'/does/not/exist\'',
      ],
    },
    {
      name: "two IPv4 cluster CIDRs",
      argv: ["--cloud-provider=fake", "--cluster-cidr=10.0.0.0/16,10.1.0.0/16", "--master=https://127.0.0.1:1"],
      want: ['error: invalid value "10.0.0.0/16,10.1.0.0/16" for flag --cluster-cidr: two CIDRs must be one IPv4 and one IPv6 (dual-stack)'],
    },
    {
      name: "no kubeconfig outside a cluster",
      argv: ["--cloud-provider=fake", "--configure-cloud-routes=false"],
      want: ["error: --kubeconfig or --master is required when not running in a cluster (no KUBERNETES_SERVICE_HOST)"],
    },
    {
      name: "invalid cloud-config: every problem named",
      argv: ["--cloud-provider=fake", `--cloud-config=${badCloud}`],
      want: [
        `error: invalid --cloud-config ${JSON.stringify(badCloud)}: faults.latency: "soon" is not a duration such as 50ms`,
        `error: invalid --cloud-config ${JSON.stringify(badCloud)}: instances[0].name: must be a non-empty string`,
      ],
    },
    { name: "unknown command", argv: ["serve"], want: ['error: unknown command "serve" (commands: run, fake-cloud, manifests, check, install)'] },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      const { code, err } = await run(c.argv, c.env);
      expect(code).toBe(2);
      expect(err.trim().split("\n")).toEqual(c.want);
    });
  }

  test("routes off: no --cluster-cidr needed", async () => {
    const { err } = await run(["--cloud-provider=fake", "--configure-cloud-routes=false", "--kubeconfig=/nope"]);
    expect(err).not.toContain("--cluster-cidr");
  });

  test("--help lists flags by group and marks compatibility-only flags", async () => {
    const { code, out } = await run(["--help"]);
    expect(code).toBe(0);
    expect(out).toContain("Leader election flags:");
    expect(out).toMatch(/--kube-api-qps float\s+QPS to use while talking with kubernetes apiserver\. \(default 20\)/);
    expect(out).toContain("Accepted for compatibility: pod CIDRs are allocated by kube-controller-manager.");
  });
});
