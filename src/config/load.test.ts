import { describe, expect, test } from "bun:test";
import { loadConfig } from "./load.ts";

const providers = ["fake", "aws"];
const base = ["--cloud-provider=fake"];

function errors(argv: string[]): string[] {
  const result = loadConfig(argv, providers);
  return result.ok ? [] : result.errors;
}

describe("loadConfig: bad input names the flag and the value", () => {
  const cases: { name: string; argv: string[]; want: string[] }[] = [
    { name: "unknown flag", argv: [...base, "--no-such-flag=1"], want: ["unknown flag: --no-such-flag"] },
    { name: "missing value", argv: [...base, "--cluster-name"], want: ["flag needs an argument: --cluster-name"] },
    { name: "malformed duration", argv: [...base, "--node-monitor-period=5 seconds"], want: ['invalid value "5 seconds" for flag --node-monitor-period: must be a duration such as 300ms, 10s or 5m0s'] },
    { name: "negative duration", argv: [...base, "--controller-start-interval=-1s"], want: ['invalid value "-1s" for flag --controller-start-interval: must not be negative'] },
    { name: "zero period", argv: [...base, "--route-reconciliation-period=0"], want: ['invalid value "0" for flag --route-reconciliation-period: must be positive'] },
    { name: "malformed number", argv: [...base, "--kube-api-qps=fast"], want: ['invalid value "fast" for flag --kube-api-qps: must be a number'] },
    { name: "malformed integer", argv: [...base, "--kube-api-burst=1.5"], want: ['invalid value "1.5" for flag --kube-api-burst: must be an integer'] },
    { name: "zero node syncs", argv: [...base, "--concurrent-node-syncs=0"], want: ['invalid value "0" for flag --concurrent-node-syncs: must be at least 1'] },
    { name: "negative status updates", argv: [...base, "--concurrent-node-status-updates=-2"], want: ['invalid value "-2" for flag --concurrent-node-status-updates: must be at least 0'] },
    { name: "bad boolean", argv: [...base, "--leader-elect=maybe"], want: ['invalid value "maybe" for flag --leader-elect: must be true or false'] },
    { name: "unknown provider", argv: ["--cloud-provider=azure"], want: ['invalid value "azure" for flag --cloud-provider: unknown cloud provider (known: fake, aws)'] },
    { name: "empty provider", argv: [], want: ["--cloud-provider cannot be empty"] },
    { name: "unknown controller", argv: [...base, "--controllers=*,-nodes"], want: ['invalid value "*,-nodes" for flag --controllers: "-nodes" is not in the list of known controllers'] },
    { name: "invalid CIDR", argv: [...base, "--cluster-cidr=10.0.0.0/8,fd00::/129"], want: ['invalid value "10.0.0.0/8,fd00::/129" for flag --cluster-cidr: "fd00::/129" is not a valid CIDR'] },
    { name: "bad enum", argv: [...base, "--logging-format=xml"], want: ['invalid value "xml" for flag --logging-format: must be one of text, json'] },
    { name: "bad lock", argv: [...base, "--leader-elect-resource-lock=endpoints"], want: ['invalid value "endpoints" for flag --leader-elect-resource-lock: must be one of leases'] },
    { name: "lease shorter than deadline", argv: [...base, "--leader-elect-lease-duration=5s"], want: ['invalid value "5s" for flag --leader-elect-lease-duration: must be greater than --leader-elect-renew-deadline'] },
    { name: "bad bind address", argv: [...base, "--bind-address=localhost"], want: ['invalid value "localhost" for flag --bind-address: must be an IP address'] },
    { name: "port out of range", argv: [...base, "--secure-port=70000"], want: ['invalid value "70000" for flag --secure-port: must be at most 65535'] },
    { name: "cert without key", argv: [...base, "--tls-cert-file=/x.crt"], want: ['invalid value "/x.crt" for flag --tls-cert-file: --tls-cert-file and --tls-private-key-file must be given together'] },
    { name: "bad feature gate value", argv: [...base, "--feature-gates=WatchList=yes"], want: ['invalid value "WatchList=yes" for flag --feature-gates: "WatchList=yes" is not Name=true|false'] },
    { name: "positional argument", argv: [...base, "serve"], want: ['"cloud-controller-manager" does not take any arguments, got ["serve"]'] },
  ];
  for (const c of cases) {
    test(c.name, () => expect(errors(c.argv)).toEqual(c.want));
  }

  test("every problem is reported together", () => {
    const all = errors(["--cloud-provider=nope", "--kube-api-qps=x", "--node-monitor-period=y", "--bogus"]);
    expect(all).toHaveLength(4);
  });
});

describe("loadConfig: upstream defaults and both flag forms", () => {
  test("defaults match upstream", () => {
    const result = loadConfig(base, providers);
    if (!result.ok) throw new Error(result.errors.join("\n"));
    const c = result.config;
    expect(c.kubeApiQps).toBe(20);
    expect(c.kubeApiBurst).toBe(30);
    expect(c.clusterName).toBe("kubernetes");
    expect(c.configureCloudRoutes).toBe(true);
    expect(c.routeReconciliationPeriodMs).toBe(10_000);
    expect(c.nodeMonitorPeriodMs).toBe(5_000);
    expect(c.nodeStatusUpdateFrequencyMs).toBe(300_000);
    expect(c.concurrentNodeSyncs).toBe(1);
    expect(c.concurrentNodeStatusUpdates).toBe(1);
    expect(c.concurrentServiceSyncs).toBe(1);
    expect(c.leaderElection).toMatchObject({ enabled: true, leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000, resourceName: "cloud-controller-manager", resourceNamespace: "kube-system" });
    expect(c.serving).toMatchObject({ bindAddress: "0.0.0.0", securePort: 10258, alwaysAllowPaths: ["/healthz", "/readyz", "/livez"] });
    expect([...c.controllers].sort()).toEqual(["cloud-node-controller", "cloud-node-lifecycle-controller", "node-route-controller", "service-lb-controller"]);
    expect(Object.isFrozen(c)).toBe(true);
  });

  test("--flag value and --flag=value mean the same; -v forms", () => {
    const a = loadConfig(["--cloud-provider", "fake", "--cluster-name", "prod", "-v", "4", "--leader-elect=false"], providers);
    const b = loadConfig(["--cloud-provider=fake", "--cluster-name=prod", "-v=4", "--leader-elect=false"], providers);
    const c = loadConfig(["--cloud-provider=fake", "--cluster-name=prod", "--v=4", "--leader-elect=false"], providers);
    for (const r of [a, b, c]) {
      if (!r.ok) throw new Error(r.errors.join("\n"));
      expect(r.config.clusterName).toBe("prod");
      expect(r.config.verbosity).toBe(4);
      expect(r.config.leaderElection.enabled).toBe(false);
    }
  });

  test("dual-stack cluster CIDR, status-update workers, compat flags recorded", () => {
    const r = loadConfig([...base, "--cluster-cidr=10.244.0.0/16,fd00:10:244::/56", "--concurrent-node-status-updates=8", "--allocate-node-cidrs=true"], providers);
    if (!r.ok) throw new Error(r.errors.join("\n"));
    expect(r.config.clusterCidrs.map((c) => c.family)).toEqual([4, 6]);
    expect(r.config.concurrentNodeStatusUpdates).toBe(8);
    expect(r.config.compatFlagsSet).toEqual(["allocate-node-cidrs"]);
  });
});
