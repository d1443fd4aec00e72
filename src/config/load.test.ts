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
    {
      name: "malformed duration",
      argv: [...base, "--node-monitor-period=5 seconds"],
      want: ['invalid value "5 seconds" for flag --node-monitor-period: must be a duration such as 300ms, 10s or 5m0s'],
    },
    {
      name: "negative duration",
      argv: [...base, "--controller-start-interval=-1s"],
      want: ['invalid value "-1s" for flag --controller-start-interval: must not be negative'],
    },
    {
      name: "zero period",
      argv: [...base, "--route-reconciliation-period=0"],
      want: ['invalid value "0" for flag --route-reconciliation-period: must be positive'],
    },
    {
      name: "malformed number",
      argv: [...base, "--kube-api-qps=fast"],
      want: ['invalid value "fast" for flag --kube-api-qps: must be a number'],
    },
    {
      name: "malformed integer",
      argv: [...base, "--kube-api-burst=1.5"],
      want: ['invalid value "1.5" for flag --kube-api-burst: must be an integer'],
    },
    {
      name: "zero node syncs",
      argv: [...base, "--concurrent-node-syncs=0"],
      want: ['invalid value "0" for flag --concurrent-node-syncs: must be at least 1'],
    },
    {
      name: "negative status updates",
      argv: [...base, "--concurrent-node-status-updates=-2"],
      want: ['invalid value "-2" for flag --concurrent-node-status-updates: must be at least 0'],
    },
    {
      name: "more controller threads than the bound",
      argv: [...base, "--controller-threads=1000"],
      want: ['invalid value "1000" for flag --controller-threads: must be at most 64'],
    },
    {
      name: "bad boolean",
      argv: [...base, "--leader-elect=maybe"],
      want: ['invalid value "maybe" for flag --leader-elect: must be true or false'],
    },
    {
      name: "unknown provider",
      argv: ["--cloud-provider=azure"],
      want: ['invalid value "azure" for flag --cloud-provider: unknown cloud provider (known: fake, aws)'],
    },
    { name: "empty provider", argv: [], want: ["--cloud-provider cannot be empty"] },
    {
      name: "unknown controller",
      argv: [...base, "--controllers=*,-nodes"],
      want: ['invalid value "*,-nodes" for flag --controllers: "-nodes" is not in the list of known controllers'],
    },
    {
      name: "invalid CIDR",
      argv: [...base, "--cluster-cidr=10.0.0.0/8,fd00::/129"],
      want: ['invalid value "10.0.0.0/8,fd00::/129" for flag --cluster-cidr: "fd00::/129" is not a valid CIDR'],
    },
    {
      name: "bad enum",
      argv: [...base, "--logging-format=xml"],
      want: ['invalid value "xml" for flag --logging-format: must be one of text, json'],
    },
    {
      name: "bad lock",
      argv: [...base, "--leader-elect-resource-lock=endpoints"],
      want: ['invalid value "endpoints" for flag --leader-elect-resource-lock: must be one of leases'],
    },
    {
      name: "lease shorter than deadline",
      argv: [...base, "--leader-elect-lease-duration=5s"],
      want: [
        'invalid value "5s" for flag --leader-elect-lease-duration: must be greater than --leader-elect-renew-deadline',
      ],
    },
    {
      name: "lease duration without a unit: one line, no ordering error after it",
      argv: [...base, "--leader-elect-lease-duration=15"],
      want: [
        'invalid value "15" for flag --leader-elect-lease-duration: must be a duration such as 300ms, 10s or 5m0s',
      ],
    },
    {
      name: "empty Lease name",
      argv: [...base, "--leader-elect-resource-name="],
      want: [
        'invalid value "" for flag --leader-elect-resource-name: must be a lowercase RFC 1123 subdomain (a Lease\'s name)',
      ],
    },
    {
      name: "worker count beyond the bound",
      argv: [...base, "--concurrent-service-syncs=2147483647"],
      want: ['invalid value "2147483647" for flag --concurrent-service-syncs: must be at most 10000'],
    },
    {
      name: "integer beyond int32",
      argv: [...base, "--kube-api-burst=99999999999"],
      want: ['invalid value "99999999999" for flag --kube-api-burst: must be at most 2147483647'],
    },
    {
      name: "key without certificate names the key's flag",
      argv: [...base, "--tls-private-key-file=/x.key"],
      want: [
        'invalid value "/x.key" for flag --tls-private-key-file: --tls-cert-file and --tls-private-key-file must be given together',
      ],
    },
    {
      name: "always-allow path with an inner *",
      argv: [...base, "--authorization-always-allow-paths=/he*lthz"],
      want: [
        'invalid value "/he*lthz" for flag --authorization-always-allow-paths: only trailing * allowed in "/he*lthz"',
      ],
    },
    {
      name: "unknown webhook",
      argv: [...base, "--webhooks=foo"],
      want: ['invalid value "foo" for flag --webhooks: "foo" is not in the list of known webhooks'],
    },
    {
      name: "webhook port is the secure port",
      argv: [...base, "--webhook-secure-port=10258"],
      want: [
        'invalid value "10258" for flag --webhook-secure-port: --webhook-secure-port cannot be the same value as --secure-port',
      ],
    },
    {
      name: "bad webhook bind address",
      argv: [...base, "--webhook-bind-address=bogus"],
      want: ['invalid value "bogus" for flag --webhook-bind-address: must be an IP address'],
    },
    {
      name: "bad bind address",
      argv: [...base, "--bind-address=localhost"],
      want: ['invalid value "localhost" for flag --bind-address: must be an IP address'],
    },
    {
      name: "port out of range",
      argv: [...base, "--secure-port=70000"],
      want: ['invalid value "70000" for flag --secure-port: must be at most 65535'],
    },
    {
      name: "cert without key",
      argv: [...base, "--tls-cert-file=/x.crt"],
      want: [
        'invalid value "/x.crt" for flag --tls-cert-file: --tls-cert-file and --tls-private-key-file must be given together',
      ],
    },
    {
      name: "bad feature gate value",
      argv: [...base, "--feature-gates=WatchList=yes"],
      want: ['invalid value "WatchList=yes" for flag --feature-gates: "WatchList=yes" is not Name=true|false'],
    },
    {
      name: "malformed --master",
      argv: [...base, "--master=https//10.0.0.1"],
      want: [
        'invalid value "https//10.0.0.1" for flag --master: must be an http(s) URL such as https://10.0.0.1:6443, or host[:port]',
      ],
    },
    {
      name: "--master with credentials",
      argv: [...base, "--master=https://u:p@10.0.0.1"],
      want: [
        'invalid value "https://u:p@10.0.0.1" for flag --master: must be an http(s) URL such as https://10.0.0.1:6443, or host[:port]',
      ],
    },
    {
      name: "unknown TLS version",
      argv: [...base, "--tls-min-version=VersionTLS14"],
      want: ['--tls-min-version: "VersionTLS14" is not one of VersionTLS10, VersionTLS11, VersionTLS12, VersionTLS13'],
    },
    {
      name: "unknown cipher suite",
      argv: [...base, "--tls-cipher-suites=TLS_FOO"],
      want: [
        '--tls-cipher-suites: unknown cipher suite "TLS_FOO" (Go names such as TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256)',
      ],
    },
    {
      name: "unknown webhook curve",
      argv: [...base, "--webhook-tls-curve-preferences=CurveP224"],
      want: [
        '--webhook-tls-curve-preferences: unknown curve "CurveP224" (CurveP256, CurveP384, CurveP521, X25519, X25519MLKEM768 or their IDs)',
      ],
    },
    {
      name: "SNI pair without a key",
      argv: [...base, "--tls-sni-cert-key=a.crt"],
      want: ['--tls-sni-cert-key: "a.crt" is not certfile,keyfile or certfile,keyfile:name,…'],
    },
    {
      name: "split stream without the alpha gate",
      argv: [...base, "--log-text-split-stream"],
      want: [
        'invalid value "true" for flag --log-text-split-stream: needs the LoggingAlphaOptions feature gate (--feature-gates=LoggingAlphaOptions=true), as upstream',
      ],
    },
    {
      name: "bad info buffer size",
      argv: [...base, "--feature-gates=LoggingAlphaOptions=true", "--log-json-info-buffer-size=lots"],
      want: [
        'invalid value "lots" for flag --log-json-info-buffer-size: must be a byte quantity such as 512, 1K, 2Ki or 5Mi',
      ],
    },
    {
      name: "positional argument",
      argv: [...base, "serve"],
      want: ['"cloud-controller-manager" does not take any arguments, got ["serve"]'],
    },
  ];
  for (const c of cases) {
    test(c.name, () => expect(errors(c.argv)).toEqual(c.want));
  }

  test("as upstream: an empty --bind-address keeps the default, leader-election values are not checked with it off, paths take an optional /", () => {
    const result = loadConfig(
      [
        ...base,
        "--bind-address=",
        "--leader-elect=false",
        "--leader-elect-resource-lock=endpoints",
        "--leader-elect-lease-duration=1s",
        "--leader-elect-renew-deadline=0s",
        "--leader-elect-retry-period=-2s",
        "--authorization-always-allow-paths=healthz,metrics/*",
      ],
      providers,
    );
    if (!result.ok) throw new Error(result.errors.join("\n"));
    expect(result.config.serving.bindAddress).toBe("0.0.0.0");
    expect(result.config.serving.alwaysAllowPaths).toEqual(["/healthz", "/metrics/*"]);
    // With leader election on the same durations are refused, and a value that is no duration always is.
    expect(errors([...base, "--leader-elect-retry-period=-2s"])).toEqual([
      'invalid value "-2s" for flag --leader-elect-retry-period: must be positive',
    ]);
    expect(errors([...base, "--leader-elect=false", "--leader-elect-retry-period=2"])).toHaveLength(1);
  });

  test("the bound of --controller-threads is itself accepted", () => {
    const result = loadConfig([...base, "--controller-threads=64"], providers);
    expect(result.ok && result.config.controllerThreads).toBe(64);
  });

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
    expect(c.leaderElection).toMatchObject({
      enabled: true,
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
      resourceName: "cloud-controller-manager",
      resourceNamespace: "kube-system",
    });
    expect(c.serving).toMatchObject({
      bindAddress: "0.0.0.0",
      securePort: 10258,
      alwaysAllowPaths: ["/healthz", "/readyz", "/livez"],
    });
    expect([...c.controllers].sort()).toEqual([
      "cloud-node-controller",
      "cloud-node-lifecycle-controller",
      "node-route-controller",
      "service-lb-controller",
    ]);
    expect(Object.isFrozen(c)).toBe(true);
  });

  test("--flag value and --flag=value mean the same; -v forms", () => {
    const a = loadConfig(
      ["--cloud-provider", "fake", "--cluster-name", "prod", "-v", "4", "--leader-elect=false"],
      providers,
    );
    const b = loadConfig(["--cloud-provider=fake", "--cluster-name=prod", "-v=4", "--leader-elect=false"], providers);
    const c = loadConfig(["--cloud-provider=fake", "--cluster-name=prod", "--v=4", "--leader-elect=false"], providers);
    for (const r of [a, b, c]) {
      if (!r.ok) throw new Error(r.errors.join("\n"));
      expect(r.config.clusterName).toBe("prod");
      expect(r.config.verbosity).toBe(4);
      expect(r.config.leaderElection.enabled).toBe(false);
    }
  });

  test("as upstream's command line: underscores in names read as dashes, empty arguments are none", () => {
    const r = loadConfig(
      ["", "--cloud_provider=fake", "--cluster_name", "prod", "", "--leader_elect=false"],
      providers,
    );
    if (!r.ok) throw new Error(r.errors.join("\n"));
    expect(r.config.clusterName).toBe("prod");
    expect(r.config.leaderElection.enabled).toBe(false);
    // An empty value is still a value: the empty kubeconfig path, not the next flag.
    const empty = loadConfig(["--cloud-provider=fake", "--kubeconfig", "", "--cluster-name=prod"], providers);
    expect(empty.ok && [empty.config.kubeconfig, empty.config.clusterName]).toEqual(["", "prod"]);
  });

  test("--kube-api-qps / --kube-api-burst as client-go: 0 means 5 and 10, a negative QPS no limit", () => {
    const limits = (flags: string[]): unknown => {
      const r = loadConfig(["--cloud-provider=fake", ...flags], providers);
      return r.ok ? [r.config.kubeApiQps, r.config.kubeApiBurst] : r.errors;
    };
    expect(limits([])).toEqual([20, 30]);
    expect(limits(["--kube-api-qps=0", "--kube-api-burst=0"])).toEqual([5, 10]);
    expect(limits(["--kube-api-qps=-1", "--kube-api-burst=7"])).toEqual([-1, 7]);
  });

  test("dual-stack cluster CIDR, status-update workers, compat flags recorded", () => {
    const r = loadConfig(
      [
        ...base,
        "--cluster-cidr=10.244.0.0/16,fd00:10:244::/56",
        "--concurrent-node-status-updates=8",
        "--allocate-node-cidrs=true",
      ],
      providers,
    );
    if (!r.ok) throw new Error(r.errors.join("\n"));
    expect(r.config.clusterCidrs.map((c) => c.family)).toEqual([4, 6]);
    expect(r.config.concurrentNodeStatusUpdates).toBe(8);
    expect(r.config.compatFlagsSet).toEqual(["allocate-node-cidrs"]);
  });

  test("--master as client-go reads it: host[:port] means https, trailing slashes dropped", () => {
    const r = loadConfig([...base, "--master=10.0.0.1:6443/"], providers);
    if (!r.ok) throw new Error(r.errors.join("\n"));
    expect(r.config.master).toBe("https://10.0.0.1:6443");
  });

  test("TLS settings, SNI pairs (repeatable, values with commas) and webhook flags as upstream writes them", () => {
    const r = loadConfig(
      [
        ...base,
        "--tls-min-version=VersionTLS11",
        "--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_AES_128_GCM_SHA256",
        "--tls-curve-preferences=X25519,CurveP256",
        "--tls-sni-cert-key=a.crt,a.key:api.example.com,*.example.com",
        "--tls-sni-cert-key",
        "b.crt,b.key",
        "--webhook-tls-min-version=VersionTLS12",
        "--webhook-tls-sni-cert-key=w.crt,w.key",
        "--webhook-disable-http2-serving",
      ],
      providers,
    );
    if (!r.ok) throw new Error(r.errors.join("\n"));
    const s = r.config.serving;
    expect([s.tlsMinVersion, s.tlsCipherSuites, s.tlsCurvePreferences]).toEqual([
      "VersionTLS11",
      ["TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "TLS_AES_128_GCM_SHA256"],
      ["X25519", "CurveP256"],
    ]);
    expect(s.sniCertKeys).toEqual([
      { certFile: "a.crt", keyFile: "a.key", names: ["api.example.com", "*.example.com"] },
      { certFile: "b.crt", keyFile: "b.key", names: [] },
    ]);
    expect(r.config.compatFlagsSet).toEqual([
      "webhook-tls-min-version",
      "webhook-tls-sni-cert-key",
      "webhook-disable-http2-serving",
    ]);
  });

  test("log output: the active format's split-stream options apply, with the alpha gate", () => {
    const gate = "--feature-gates=LoggingAlphaOptions=true";
    const flags = [
      "--log-text-split-stream",
      "--log-text-info-buffer-size=2Ki",
      "--log-json-info-buffer-size=1M",
      "--log-flush-frequency=2s",
    ];
    const text = loadConfig([...base, gate, ...flags], providers);
    const json = loadConfig([...base, gate, ...flags, "--logging-format=json"], providers);
    if (!text.ok || !json.ok) throw new Error("rejected");
    expect(text.config.logOutput).toEqual({ splitStream: true, infoBufferBytes: 2048, flushFrequencyMs: 2000 });
    expect(json.config.logOutput).toEqual({ splitStream: false, infoBufferBytes: 0, flushFrequencyMs: 2000 });
    const plain = loadConfig(base, providers);
    expect(plain.ok && plain.config.logOutput).toEqual({
      splitStream: false,
      infoBufferBytes: 0,
      flushFrequencyMs: 5000,
    });
  });

  test("an upstream manifest's serving, webhook and logging flags all parse", () => {
    const upstream = [
      "--webhook-disable-http2-serving=true",
      "--webhook-tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
      "--webhook-tls-curve-preferences=CurveP256",
      "--webhook-tls-min-version=VersionTLS12",
      "--webhook-tls-sni-cert-key=w.crt,w.key:hooks.local",
      "--feature-gates=LoggingAlphaOptions=true",
      "--log-text-split-stream=true",
      "--log-json-split-stream=true",
      "--log-text-info-buffer-size=64Ki",
      "--log-json-info-buffer-size=1M",
      "--tls-min-version=VersionTLS10",
      "--client-ca-file=/etc/kubernetes/pki/ca.crt",
      "--requestheader-client-ca-file=/etc/kubernetes/pki/front-proxy-ca.crt",
      "--requestheader-allowed-names=front-proxy-client",
      "--authentication-skip-lookup=false",
    ];
    const r = loadConfig([...base, ...upstream], providers);
    expect(r.ok ? [] : r.errors).toEqual([]);
    if (!r.ok) return;
    expect(r.config.serving.clientAuth).toMatchObject({
      clientCAFile: "/etc/kubernetes/pki/ca.crt",
      requestHeaderAllowedNames: ["front-proxy-client"],
    });
    expect(r.config.logOutput).toEqual({ splitStream: true, infoBufferBytes: 65_536, flushFrequencyMs: 5000 });
  });
});
