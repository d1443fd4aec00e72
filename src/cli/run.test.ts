import { describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "./cli.ts";
import { builtins } from "../builtins.ts";
import { subCommands } from "../sub-commands.ts";
import { runCommand } from "./run-cli.test-support.ts";

describe("start-up rejects bad input with status 2, one line per problem, before anything starts", () => {
  const dir = mkdtempSync(join(tmpdir(), "ccm-run-"));
  const badCloud = join(dir, "cloud.yaml");
  writeFileSync(badCloud, "faults: { latency: soon }\ninstances: [{ name: '' }]\n");
  const kubeconfig = join(dir, "kubeconfig");
  writeFileSync(
    kubeconfig,
    "apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: 'https://127.0.0.1:1'}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\ncurrent-context: c\n",
  );
  const emptyKubeconfig = join(dir, "empty-kubeconfig");
  writeFileSync(emptyKubeconfig, "\n");
  const commentKubeconfig = join(dir, "comment-kubeconfig");
  writeFileSync(commentKubeconfig, "---\n# filled in by the installer\n");
  const brokenKubeconfig = join(dir, "broken-kubeconfig");
  writeFileSync(brokenKubeconfig, "clusters: [\n");
  const awsSyntax = join(dir, "syntax.conf");
  writeFileSync(
    awsSyntax,
    "[Global\nRegion = us-east-1\nVPC = vpc-0123456789abcdef0\nKubernetesClusterID = c\nRoleARN = \n",
  );
  const awsEc2Only = join(dir, "ec2-only.conf");
  const override =
    '[ServiceOverride "1"]\nService = ec2\nRegion = us-east-1\nURL = https://ec2.vpce.internal\nSigningRegion = us-east-1\n';
  writeFileSync(
    awsEc2Only,
    `[Global]\nRegion = us-east-1\nKubernetesClusterID = c\nRoleARN = \nSourceARN = \n${override}`,
  );
  const aws = (file: string): string[] => [
    "--cloud-provider=aws",
    `--cloud-config=${file}`,
    `--kubeconfig=${kubeconfig}`,
    "--configure-cloud-routes=false",
  ];
  const fake = ["--cloud-provider=fake", `--kubeconfig=${kubeconfig}`, "--configure-cloud-routes=false"];
  const overrideMissing = (service: string): string =>
    `error: invalid --cloud-config ${JSON.stringify(awsEc2Only)}: [ServiceOverride] no override for ${service} in us-east-1: with private endpoints configured, every service called needs one (ec2, elasticloadbalancing, elasticloadbalancingv2); a public endpoint is never tried`;

  const cases: { name: string; argv: string[]; env?: Record<string, string>; want: string[] }[] = [
    {
      name: "routes on with the fake provider and no --cluster-cidr, unreadable kubeconfig",
      argv: ["--cloud-provider=fake", "--kubeconfig=/does/not/exist"],
      want: [
        'error: invalid value "" for flag --cluster-cidr: the node-route-controller needs the cluster\'s pod CIDR range(s); set it, or turn routes off with --configure-cloud-routes=false',
        "error: invalid --kubeconfig \"/does/not/exist\": ENOENT: no such file or directory, open '/does/not/exist'",
      ],
    },
    {
      name: "an empty kubeconfig file, as client-go words it",
      argv: ["--cloud-provider=fake", "--configure-cloud-routes=false", `--kubeconfig=${emptyKubeconfig}`],
      want: [
        `error: invalid --kubeconfig ${JSON.stringify(emptyKubeconfig)}: no configuration has been provided: the file is empty`,
      ],
    },
    {
      name: "a kubeconfig of a comment alone",
      argv: ["--cloud-provider=fake", "--configure-cloud-routes=false", `--kubeconfig=${commentKubeconfig}`],
      want: [`error: invalid --kubeconfig ${JSON.stringify(commentKubeconfig)}: not a kubeconfig: no YAML mapping`],
    },
    {
      name: "a kubeconfig that is not YAML: one line, without the parser's excerpt",
      argv: ["--cloud-provider=fake", "--configure-cloud-routes=false", `--kubeconfig=${brokenKubeconfig}`],
      want: [
        `error: invalid --kubeconfig ${JSON.stringify(brokenKubeconfig)}: unexpected end of the stream within a flow collection (2:1)`,
      ],
    },
    {
      name: "the secure port's delegated-auth kubeconfigs, named by flag before anything starts",
      argv: [...fake, `--authentication-kubeconfig=${emptyKubeconfig}`, "--authorization-kubeconfig=/does/not/exist"],
      want: [
        `error: invalid --authentication-kubeconfig ${JSON.stringify(emptyKubeconfig)}: no configuration has been provided: the file is empty`,
        "error: invalid --authorization-kubeconfig \"/does/not/exist\": ENOENT: no such file or directory, open '/does/not/exist'",
      ],
    },
    {
      name: "two IPv4 cluster CIDRs",
      argv: ["--cloud-provider=fake", "--cluster-cidr=10.0.0.0/16,10.1.0.0/16", "--master=https://127.0.0.1:1"],
      want: [
        'error: invalid value "10.0.0.0/16,10.1.0.0/16" for flag --cluster-cidr: two CIDRs must be one IPv4 and one IPv6 (dual-stack)',
      ],
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
    {
      name: "an upstream AWS cloud-config with a broken section header: one line, not one per key",
      argv: aws(awsSyntax),
      want: [
        `error: invalid --cloud-config ${JSON.stringify(awsSyntax)}: line 1: malformed section header "[Global" (expected [Name] or [Name "sub"])`,
      ],
    },
    {
      name: "private endpoints for ec2 only: the services without one are named, no DNS lookup",
      argv: aws(awsEc2Only),
      want: [overrideMissing("elasticloadbalancing"), overrideMissing("elasticloadbalancingv2")],
    },
    {
      name: "malformed --master",
      argv: [...fake, "--master=https//10.0.0.1"],
      want: [
        'error: invalid value "https//10.0.0.1" for flag --master: must be an http(s) URL such as https://10.0.0.1:6443, or host[:port]',
      ],
    },
    {
      name: "serving certificate files that do not exist",
      argv: [
        ...fake,
        `--tls-cert-file=${join(dir, "none.crt")}`,
        `--tls-private-key-file=${join(dir, "none.key")}`,
        `--client-ca-file=${join(dir, "ca.crt")}`,
      ],
      want: [
        `error: --tls-cert-file: cannot read ${JSON.stringify(join(dir, "none.crt"))} (ENOENT)`,
        `error: --tls-private-key-file: cannot read ${JSON.stringify(join(dir, "none.key"))} (ENOENT)`,
        `error: --client-ca-file: cannot read ${JSON.stringify(join(dir, "ca.crt"))} (ENOENT)`,
      ],
    },
    {
      name: "an unknown feature gate",
      argv: [...fake, "--feature-gates=NoSuchGate=true"],
      want: [
        expect.stringMatching(
          /^error: invalid value "NoSuchGate=true" for flag --feature-gates: unrecognized feature gate: NoSuchGate \(--help lists the known ones\)$/,
        ) as string,
      ],
    },
    {
      name: "a TLS setting the runtime cannot honour",
      argv: [...fake, "--tls-cipher-suites=TLS_RSA_WITH_RC4_128_SHA"],
      want: ["error: --tls-cipher-suites: TLS_RSA_WITH_RC4_128_SHA is not supported by this runtime's TLS library"],
    },
    {
      name: "unknown command",
      argv: ["serve"],
      want: [
        'error: unknown command "serve" (commands: run, fake-cloud, manifests, check, install, import-pools, export-inventory)',
      ],
    },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      const { code, out, err } = await runCommand(c.argv, c.env);
      expect(code).toBe(2);
      expect(err.trim().split("\n")).toEqual(c.want);
      expect(out).toBe("");
    });
  }

  test("routes off: no --cluster-cidr needed", async () => {
    const { err } = await runCommand(["--cloud-provider=fake", "--configure-cloud-routes=false", "--kubeconfig=/nope"]);
    expect(err).not.toContain("--cluster-cidr");
  });

  test("a command's --help is plain text, as the manager's (no colour codes in a pipe)", async () => {
    const { code, out } = await runCommand(["manifests", "--help"]);
    expect(code).toBe(0);
    expect(out).toContain("USAGE cloud-controller-manager manifests");
    expect(out).not.toContain("\u001b[");
  });

  test("--help lists flags by group and marks compatibility-only flags", async () => {
    const { code, out } = await runCommand(["--help"]);
    expect(code).toBe(0);
    expect(out).toContain("Leader election flags:");
    expect(out).toMatch(/--kube-api-qps float\s+QPS to use while talking with kubernetes apiserver\. \(default 20\)/);
    expect(out).toContain("Accepted for compatibility: pod CIDRs are allocated by kube-controller-manager.");
  });

  test("--log-text-split-stream (with LoggingAlphaOptions): info lines on stdout, nothing on stderr until an error; --v=1 logs the FLAG: lines", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ccm-split-"));
    const kubeconfig = join(dir, "kubeconfig");
    writeFileSync(
      kubeconfig,
      "apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: 'https://127.0.0.1:1'}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\ncurrent-context: c\n",
    );
    let out = "";
    let err = "";
    const stop = new AbortController();
    const io = {
      env: {},
      stdout: (t: string) => void (out += t),
      stderr: (t: string) => void (err += t),
      signal: stop.signal,
      hostname: "test",
      workerUrl: "",
      cpus: 4,
    };
    const argv = [
      "--cloud-provider=fake",
      `--kubeconfig=${kubeconfig}`,
      "--configure-cloud-routes=false",
      "--secure-port=0",
      "--feature-gates=LoggingAlphaOptions=true",
      "--log-text-split-stream",
      "--v=1",
    ];
    const exited = runCli(argv, io, builtins(), subCommands());
    for (let i = 0; i < 100 && !out.includes("secure serving is disabled"); i++) await Bun.sleep(50);
    stop.abort();
    await exited;
    expect(out).toMatch(/^I\d{4} [\d:.]+ +\d+ main\] cloud-controller-manager v/m);
    expect(out).toContain("secure serving is disabled (--secure-port=0)");
    expect(out).toMatch(/^I\d{4} [\d:.]+ +\d+ main\] FLAG: --bind-address="0\.0\.0\.0"$/m);
    expect(out).toContain('FLAG: --v="1"');
    expect(err).not.toMatch(/^I/m);
  });
});
