import { describe, expect, test } from "bun:test";
import { createRegistry } from "../cloud/registry.ts";
import { splitArgs } from "../cli/command-args.ts";
import { packageOptions, PACKAGE_FLAG_LIST } from "../cli/package-options.ts";
import { render, type Kind } from "./catalog.ts";
import { rbacManifests } from "./rbac.ts";
import { baremetalProviderFactory } from "../../providers/baremetal/index.ts";
import { vsphereProviderFactory } from "../../providers/vsphere/index.ts";
import { NAME, type PackageOptions } from "./options.ts";

/** Providers that need no permissions of their own; "bare" declares it never offers routes. */
const PROVIDERS = createRegistry(
  ["fake", "other", "bare"].map((name) => ({
    name,
    parseConfig: () => ({ ok: true as const, config: undefined as never }),
    create: () => Promise.resolve({ name }),
    withoutRoutes: name === "bare",
  })),
);

/** Routes off unless a case is about them, so the others need no --cluster-cidr. */
const ROUTES_OFF = "--configure-cloud-routes=false";
const routesOff = (argv: string[]): string[] =>
  argv.some((a) => /^--(cluster-cidr|configure-cloud-routes|controllers)/.test(a)) ? argv : [...argv, ROUTES_OFF];

function options(argv: string[]): { kind: Kind; options: PackageOptions } {
  const result = packageOptions(splitArgs(routesOff(argv), PACKAGE_FLAG_LIST), PROVIDERS);
  if (!result.ok) throw new Error(result.errors.join("\n"));
  return result;
}

function errors(argv: string[]): string[] {
  const result = packageOptions(splitArgs(routesOff(argv), PACKAGE_FLAG_LIST), PROVIDERS);
  return result.ok ? [] : result.errors;
}

const renderArgs = (argv: string[]): string => {
  const { kind, options: o } = options(argv);
  return render(kind, o);
};

describe("package options", () => {
  const cases: { name: string; argv: string[]; args?: string[]; errors?: string[] }[] = [
    {
      name: "host kinds get the conventional kubeconfig",
      argv: ["systemd", "--cloud-provider=fake"],
      args: ["--kubeconfig=/etc/kubernetes/cloud-controller-manager.conf", "--cloud-provider=fake"],
    },
    {
      name: "a named kubeconfig is kept",
      argv: ["static-pod", "--cloud-provider", "fake", "--kubeconfig", "/k"],
      args: ["--cloud-provider=fake", "--kubeconfig=/k"],
    },
    {
      name: "--master stands in for a kubeconfig",
      argv: ["systemd-env", "--cloud-provider=fake", "--master=https://10.0.0.1:6443"],
      args: ["--cloud-provider=fake", "--master=https://10.0.0.1:6443"],
    },
    {
      name: "in-cluster kinds get no kubeconfig",
      argv: ["daemonset", "--cloud-provider=fake"],
      args: ["--cloud-provider=fake"],
    },
    {
      name: "flags are normalised: short -v, bare booleans",
      argv: ["deployment", "--cloud-provider=fake", "-v", "4", "--use-service-account-credentials"],
      args: ["--cloud-provider=fake", "--v=4", "--use-service-account-credentials=true"],
    },
    {
      name: "each occurrence of a repeated flag stays its own argument (a unit splits on whitespace)",
      argv: [
        "systemd-env",
        "--cloud-provider=fake",
        "--master=https://h",
        "--tls-sni-cert-key=/a.crt,/a.key",
        "--tls-sni-cert-key",
        "/b.crt,/b.key",
      ],
      args: [
        "--cloud-provider=fake",
        "--master=https://h",
        "--tls-sni-cert-key=/a.crt,/a.key",
        "--tls-sni-cert-key=/b.crt,/b.key",
      ],
    },
    {
      name: "packaging flags do not reach the manager",
      argv: ["daemonset", "--image=registry.local/ccm:v1", "--cloud-provider=fake", "--binary", "/ccm"],
      args: ["--cloud-provider=fake"],
    },
    {
      name: "rbac needs no provider",
      argv: ["rbac", "--leader-elect-resource-name=x"],
      args: ["--leader-elect-resource-name=x"],
    },
    {
      name: "no kind",
      argv: ["--cloud-provider=fake"],
      errors: ["a kind is required: systemd, systemd-env, sysusers, static-pod, daemonset, deployment, rbac, crds"],
    },
    {
      name: "unknown kind",
      argv: ["helm", "--cloud-provider=fake"],
      errors: [
        'unknown kind "helm" (kinds: systemd, systemd-env, sysusers, static-pod, daemonset, deployment, rbac, crds)',
      ],
    },
    {
      name: "a manager flag with a bad value",
      argv: ["systemd", "--cloud-provider=fake", "--secure-port=https"],
      errors: ['invalid value "https" for flag --secure-port: must be an integer'],
    },
    {
      name: "an unknown flag",
      argv: ["systemd", "--cloud-provider=fake", "--replicas=3"],
      errors: ["unknown flag: --replicas"],
    },
    {
      name: "an unknown provider",
      argv: ["systemd", "--cloud-provider=nimbus"],
      errors: ['invalid value "nimbus" for flag --cloud-provider: unknown cloud provider (known: bare, fake, other)'],
    },
    { name: "provider required outside rbac", argv: ["static-pod"], errors: ["--cloud-provider cannot be empty"] },
    {
      name: "pods need the secure port",
      argv: ["static-pod", "--cloud-provider=fake", "--secure-port=0"],
      errors: ['invalid value "0" for flag --secure-port: static-pod probes /healthz on the secure port'],
    },
    {
      name: "pods probe /healthz unauthenticated",
      argv: ["daemonset", "--cloud-provider=fake", "--authorization-always-allow-paths=/livez"],
      errors: [
        'invalid value "/livez" for flag --authorization-always-allow-paths: daemonset probes /healthz without credentials',
      ],
    },
    {
      name: "a prefix that covers /healthz lets the probes in, as the server matches it",
      argv: ["daemonset", "--cloud-provider=fake", "--authorization-always-allow-paths=/healthz*,/readyz"],
      args: ["--cloud-provider=fake", "--authorization-always-allow-paths=/healthz*,/readyz"],
    },
    {
      name: "a prefix that does not cover /healthz does not",
      argv: ["static-pod", "--cloud-provider=fake", "--kubeconfig=/k", "--authorization-always-allow-paths=/healthz/*"],
      errors: [
        'invalid value "/healthz/*" for flag --authorization-always-allow-paths: static-pod probes /healthz without credentials',
      ],
    },
    {
      name: "in-cluster kinds use their ServiceAccount",
      argv: ["deployment", "--cloud-provider=fake", "--kubeconfig=/k"],
      errors: ['invalid value "/k" for flag --kubeconfig: deployment uses its ServiceAccount'],
    },
    {
      name: "in-cluster pods run as non-root, which cannot bind a low port",
      argv: ["daemonset", "--cloud-provider=fake", "--secure-port=443"],
      errors: [
        'invalid value "443" for flag --secure-port: daemonset runs as a non-root user, which cannot listen below 1024',
      ],
    },
    {
      name: "the cloud-config Secret cannot be mounted over / or the executable's folder",
      argv: ["deployment", "--cloud-provider=fake", "--cloud-config=/usr/local/cloud.conf"],
      errors: [
        `invalid value "/usr/local/cloud.conf" for flag --cloud-config: deployment mounts its Secret over the file's folder, which cannot be / or hold the executable`,
      ],
    },
    {
      name: "nor over a relative folder",
      argv: ["daemonset", "--cloud-provider=fake", "--cloud-config=cloud.conf"],
      errors: [`invalid value "cloud.conf" for flag --cloud-config: daemonset needs an absolute path`],
    },
    {
      name: "an install file names absolute paths only (hostPath, ReadOnlyPaths= cannot take relative ones)",
      argv: [
        "systemd",
        "--cloud-provider=fake",
        "--kubeconfig=kc",
        "--cloud-config=c",
        "--tls-cert-file=x.crt",
        "--tls-private-key-file=/x.key",
      ],
      errors: [
        'invalid value "kc" for flag --kubeconfig: systemd needs an absolute path',
        'invalid value "c" for flag --cloud-config: systemd needs an absolute path',
        'invalid value "x.crt" for flag --tls-cert-file: systemd needs an absolute path',
      ],
    },
    {
      name: "the cert-dir too",
      argv: ["daemonset", "--cloud-provider=fake", "--cert-dir=relative/dir"],
      errors: ['invalid value "relative/dir" for flag --cert-dir: daemonset needs an absolute path'],
    },
    {
      name: "routes on without --cluster-cidr: refused, as the manager would refuse to start",
      argv: ["daemonset", "--cloud-provider=fake", "--controllers=*"],
      errors: [
        `invalid value "" for flag --cluster-cidr: the node-route-controller needs the cluster's pod CIDR range(s); set it, or turn routes off with --configure-cloud-routes=false`,
      ],
    },
    {
      name: "and with two CIDRs of one family",
      argv: ["systemd", "--cloud-provider=fake", "--cluster-cidr=10.0.0.0/16,10.1.0.0/16"],
      errors: [
        'invalid value "10.0.0.0/16,10.1.0.0/16" for flag --cluster-cidr: two CIDRs must be one IPv4 and one IPv6 (dual-stack)',
      ],
    },
    {
      name: "routes need no --cluster-cidr when turned off",
      argv: ["static-pod", "--cloud-provider=fake", "--kubeconfig=/k", "--configure-cloud-routes=false"],
      errors: [],
    },
    {
      name: "or when the route controller is not run",
      argv: ["deployment", "--cloud-provider=fake", "--controllers=*,-route"],
      args: ["--cloud-provider=fake", "--controllers=*,-route"],
    },
    {
      name: "or when the provider never offers routes: its route controller does not start",
      argv: ["daemonset", "--cloud-provider=bare", "--controllers=*"],
      args: ["--cloud-provider=bare", "--controllers=*"],
    },
    {
      name: "rbac runs nothing: no --cluster-cidr",
      argv: ["rbac", "--controllers=*"],
      args: ["--controllers=*"],
    },
    {
      name: "systemd values cannot hold spaces",
      argv: ["systemd", "--cloud-provider=fake", "--cluster-name=my cluster"],
      errors: [
        'invalid value "my cluster" for flag --cluster-name: a systemd unit cannot carry spaces, quotes, $, % or backslashes',
      ],
    },
    {
      name: "nor can the binary path",
      argv: ["systemd-env", "--cloud-provider=fake", "--binary=/opt/my ccm"],
      errors: [
        'invalid value "/opt/my ccm" for flag --binary: a systemd unit cannot carry spaces, quotes, $, % or backslashes',
      ],
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      if (c.errors) expect(errors(c.argv)).toEqual(c.errors);
      else expect(options(c.argv).options.args.filter((a) => a !== ROUTES_OFF)).toEqual(c.args!);
    });
  }
});

const directives = (unit: string): Map<string, string> =>
  new Map(
    unit
      .split("\n")
      .filter((l) => /^[A-Za-z]+=/.test(l))
      .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
  );

describe("systemd unit", () => {
  test("is hardened and reads its flags from the environment file", () => {
    const unit = directives(
      renderArgs([
        "systemd",
        "--cloud-provider=fake",
        "--cloud-config=/etc/kubernetes/cloud.conf",
        "--env-file=/etc/ccm.env",
        "--binary=/opt/ccm",
      ]),
    );
    expect(
      Object.fromEntries(
        [...unit].filter(([k]) =>
          [
            "ExecStart",
            "EnvironmentFile",
            "Restart",
            "NoNewPrivileges",
            "ProtectSystem",
            "ProtectHome",
            "PrivateTmp",
            "User",
            "Group",
            "ReadOnlyPaths",
            "CapabilityBoundingSet",
          ].includes(k),
        ),
      ),
    ).toEqual({
      User: "cloud-controller-manager",
      Group: "cloud-controller-manager",
      EnvironmentFile: "/etc/ccm.env",
      ExecStart: "/opt/ccm $CCM_ARGS",
      Restart: "always",
      NoNewPrivileges: "yes",
      ProtectSystem: "strict",
      ProtectHome: "yes",
      PrivateTmp: "yes",
      ReadOnlyPaths: "-/etc/kubernetes/cloud-controller-manager.conf -/etc/kubernetes/cloud.conf",
      CapabilityBoundingSet: "",
    });
    expect(unit.has("MemoryDenyWriteExecute")).toBe(false);
    expect(unit.has("DynamicUser")).toBe(false);
  });

  const cases: { name: string; argv: string[]; expect: Record<string, string | undefined> }[] = [
    {
      name: "a port below 1024 keeps only the bind capability",
      argv: ["--secure-port=443"],
      expect: { CapabilityBoundingSet: "CAP_NET_BIND_SERVICE", AmbientCapabilities: "CAP_NET_BIND_SERVICE" },
    },
    {
      name: "--cert-dir in the service's own /var/lib folder is its state directory (systemd makes it)",
      argv: ["--cert-dir=/var/lib/cloud-controller-manager/certs"],
      expect: {
        StateDirectory: "cloud-controller-manager/certs",
        StateDirectoryMode: "0700",
        ReadWritePaths: undefined,
      },
    },
    {
      name: "a shared /var/lib folder is not (systemd would give all of it to the service's user)",
      argv: ["--cert-dir=/var/lib/kubernetes"],
      expect: { StateDirectory: undefined, ReadWritePaths: "/var/lib/kubernetes" },
    },
    {
      name: "--cert-dir elsewhere is writable (install makes it)",
      argv: ["--cert-dir=/srv/ccm"],
      expect: { ReadWritePaths: "/srv/ccm", StateDirectory: undefined },
    },
    {
      name: "certificates are read-only paths",
      argv: ["--tls-cert-file=/etc/ccm/tls.crt", "--tls-private-key-file=/etc/ccm/tls.key"],
      expect: { ReadOnlyPaths: "-/etc/kubernetes/cloud-controller-manager.conf -/etc/ccm/tls.crt -/etc/ccm/tls.key" },
    },
    {
      name: "stop timeout covers the shutdown grace period",
      argv: ["--shutdown-grace-period=1m"],
      expect: { TimeoutStopSec: "70s" },
    },
    { name: "nothing writable by default", argv: [], expect: { ReadWritePaths: undefined, TimeoutStopSec: "30s" } },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const unit = directives(renderArgs(["systemd", "--cloud-provider=fake", ...c.argv]));
      for (const [key, value] of Object.entries(c.expect)) expect(unit.get(key)).toBe(value as string);
    });
  }

  test("the environment file holds the normalised flags", () => {
    const env = renderArgs([
      "systemd-env",
      "--cloud-provider=fake",
      "--cluster-cidr",
      "10.244.0.0/16,fd00:10:244::/56",
      "-v=2",
    ]);
    expect(env.split("\n").filter((l) => !l.startsWith("#") && l !== "")).toEqual([
      'CCM_ARGS="--kubeconfig=/etc/kubernetes/cloud-controller-manager.conf --cloud-provider=fake --cluster-cidr=10.244.0.0/16,fd00:10:244::/56 --v=2"',
    ]);
  });
});

interface Container {
  image: string;
  command: string[];
  livenessProbe: { httpGet: Record<string, unknown> };
  startupProbe: { httpGet: Record<string, unknown> };
  volumeMounts: { name: string; mountPath: string; readOnly: boolean }[];
}
interface PodSpecView {
  hostNetwork: boolean;
  priorityClassName: string;
  serviceAccountName?: string;
  nodeSelector?: Record<string, string>;
  affinity?: {
    nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: unknown[] } };
  };
  securityContext: { runAsNonRoot?: boolean };
  tolerations: { key: string; effect?: string }[];
  containers: Container[];
  volumes: { name: string; hostPath?: { path: string; type: string }; secret?: unknown }[];
}
interface Doc {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace: string; labels?: Record<string, string> };
  spec: PodSpecView & {
    selector: { matchLabels: Record<string, string> };
    template?: { metadata: { labels: Record<string, string> }; spec: PodSpecView };
  };
}
const docs = (argv: string[]): Doc[] => [Bun.YAML.parse(renderArgs(argv)) as Doc | Doc[]].flat();
const podSpec = (argv: string[]): PodSpecView => {
  const last = docs(argv).at(-1)!;
  return last.spec.template ? last.spec.template.spec : last.spec;
};

describe("pods", () => {
  test("static pod: host network, node-critical, HTTPS probes, tolerations, host files", () => {
    const [pod] = docs([
      "static-pod",
      "--cloud-provider=fake",
      "--cloud-config=/etc/kubernetes/cloud.conf",
      "--secure-port=10300",
    ]);
    const spec = pod!.spec;
    expect(pod!.metadata.namespace).toBe("kube-system");
    expect(spec.hostNetwork).toBe(true);
    expect(spec.priorityClassName).toBe("system-node-critical");
    expect(spec.tolerations.map((t) => t.key)).toEqual([
      "node.cloudprovider.kubernetes.io/uninitialized",
      "node-role.kubernetes.io/control-plane",
      "node-role.kubernetes.io/master",
    ]);
    const c = spec.containers[0]!;
    expect(c.livenessProbe.httpGet).toEqual({ scheme: "HTTPS", host: "127.0.0.1", port: 10300, path: "/healthz" });
    expect(c.startupProbe.httpGet.path).toBe("/healthz");
    expect(c.command).toEqual([
      "/usr/local/bin/cloud-controller-manager",
      "--kubeconfig=/etc/kubernetes/cloud-controller-manager.conf",
      "--cloud-provider=fake",
      "--cloud-config=/etc/kubernetes/cloud.conf",
      "--secure-port=10300",
      ROUTES_OFF,
    ]);
    expect(spec.volumes).toEqual([
      { name: "binary", hostPath: { path: "/usr/local/bin/cloud-controller-manager", type: "File" } },
      { name: "kubeconfig", hostPath: { path: "/etc/kubernetes/cloud-controller-manager.conf", type: "File" } },
      { name: "cloud-config", hostPath: { path: "/etc/kubernetes/cloud.conf", type: "File" } },
    ]);
    expect(c.volumeMounts.every((m) => m.readOnly)).toBe(true);
  });

  const cases: { name: string; argv: string[]; check: (spec: PodSpecView) => void }[] = [
    {
      name: "an image carries the binary: no host mount",
      argv: ["static-pod", "--image=registry.local/ccm:v1", "--binary=/ccm"],
      check: (s) => {
        expect(s.containers[0]!.image).toBe("registry.local/ccm:v1");
        expect(s.containers[0]!.command[0]).toBe("/ccm");
        expect(s.volumes.map((v) => v.name)).toEqual(["kubeconfig"]);
      },
    },
    {
      name: "one file named by two flags is mounted once",
      argv: ["static-pod", "--kubeconfig=/k", "--authentication-kubeconfig=/k", "--authorization-kubeconfig=/k"],
      check: (s) => {
        expect(s.volumes.filter((v) => v.hostPath?.path === "/k")).toHaveLength(1);
      },
    },
    {
      name: "a specific bind address is probed there",
      argv: ["static-pod", "--bind-address=10.0.0.5"],
      check: (s) => expect(s.containers[0]!.livenessProbe.httpGet.host).toBe("10.0.0.5"),
    },
    {
      name: "--cert-dir is a writable host directory",
      argv: ["static-pod", "--cert-dir=/var/lib/ccm"],
      check: (s) =>
        expect(s.volumes.at(-1)).toEqual({
          name: "cert-dir",
          hostPath: { path: "/var/lib/ccm", type: "DirectoryOrCreate" },
        }),
    },
    {
      name: "daemonset: ServiceAccount, control plane by either role label, fresh-cluster taints tolerated, cloud-config from a Secret, non-root",
      argv: ["daemonset", "--cloud-config=/etc/kubernetes/cloud.conf"],
      check: (s) => {
        expect(s.serviceAccountName).toBe("cloud-controller-manager");
        expect(s.nodeSelector).toBeUndefined();
        const terms = s.affinity?.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms;
        expect(terms).toEqual([
          { matchExpressions: [{ key: "node-role.kubernetes.io/control-plane", operator: "Exists" }] },
          { matchExpressions: [{ key: "node-role.kubernetes.io/master", operator: "Exists" }] },
        ]);
        expect(s.tolerations.map((t) => `${t.key}:${t.effect ?? "*"}`)).toEqual([
          "node.cloudprovider.kubernetes.io/uninitialized:NoSchedule",
          "node-role.kubernetes.io/control-plane:NoSchedule",
          "node-role.kubernetes.io/master:NoSchedule",
          "CriticalAddonsOnly:*",
          "node.kubernetes.io/not-ready:NoSchedule",
          "node.kubernetes.io/not-ready:NoExecute",
        ]);
        expect(s.securityContext.runAsNonRoot).toBe(true);
        expect(s.volumes[1]).toEqual({
          name: "cloud-config",
          secret: {
            secretName: "cloud-controller-manager-cloud-config",
            defaultMode: 0o440,
            items: [{ key: "cloud.conf", path: "cloud.conf" }],
          },
        });
        expect(s.containers[0]!.volumeMounts[1]).toEqual({
          name: "cloud-config",
          mountPath: "/etc/kubernetes",
          readOnly: true,
        });
        expect(s.containers[0]!.command).toEqual([
          "/usr/local/bin/cloud-controller-manager",
          "--cloud-config=/etc/kubernetes/cloud.conf",
          "--cloud-provider=fake",
          ROUTES_OFF,
        ]);
      },
    },
    {
      name: "deployment in the Lease namespace, node-critical as upstream's DaemonSets",
      argv: ["deployment", "--leader-elect-resource-namespace=ccm-system"],
      check: (s) => expect(s.priorityClassName).toBe("system-node-critical"),
    },
  ];
  for (const c of cases) test(c.name, () => c.check(podSpec([...c.argv, "--cloud-provider=fake"])));

  test("without leader election, a DaemonSet or static pod says in the file that it belongs on one control-plane node", () => {
    for (const kind of ["static-pod", "daemonset"]) {
      const text = renderArgs([kind, "--cloud-provider=fake", "--leader-elect=false"]);
      expect(text).toStartWith(
        `# --leader-elect=false: every control-plane node running this ${kind} runs an active manager`,
      );
      expect(renderArgs([kind, "--cloud-provider=fake"])).not.toContain("--leader-elect=false");
    }
    expect(renderArgs(["deployment", "--cloud-provider=fake", "--leader-elect=false"])).not.toStartWith("#");
  });

  test("in-cluster kinds ship their namespace and ServiceAccount, in the Lease namespace", () => {
    for (const kind of ["daemonset", "deployment"]) {
      const argv = [kind, "--cloud-provider=fake", "--leader-elect-resource-namespace=ccm-system"];
      const [ns, sa, workload] = docs(argv);
      expect([ns!.kind, ns!.metadata.name]).toEqual(["Namespace", "ccm-system"]);
      expect(sa as unknown).toEqual({
        apiVersion: "v1",
        kind: "ServiceAccount",
        metadata: {
          name: "cloud-controller-manager",
          namespace: "ccm-system",
          labels: { "app.kubernetes.io/name": "cloud-controller-manager" },
        },
      });
      expect(workload!.metadata.namespace).toBe("ccm-system");
      expect(workload!.spec.selector.matchLabels).toEqual(workload!.spec.template!.metadata.labels);
    }
  });
});

describe("crds", () => {
  test("the bare-metal CRDs: cluster-scoped, structural; AddressPool with a status subresource, BareMetalMachine without", () => {
    const registry = createRegistry([baremetalProviderFactory as never]);
    const result = packageOptions(splitArgs(["crds", "--cloud-provider=baremetal"], PACKAGE_FLAG_LIST), registry);
    if (!result.ok) throw new Error(result.errors.join("\n"));
    const [pools, machines] = result.options.customResources as unknown as {
      metadata: { name: string };
      spec: { scope: string; names: { shortNames: string[] }; versions: { subresources?: object }[] };
    }[];
    expect(pools!.metadata.name).toBe("addresspools.cloud-controller-manager.io");
    expect(pools!.spec.scope).toBe("Cluster");
    expect(pools!.spec.versions[0]!.subresources).toEqual({ status: {} });
    expect(machines!.metadata.name).toBe("baremetalmachines.cloud-controller-manager.io");
    expect(machines!.spec.scope).toBe("Cluster");
    expect(machines!.spec.names.shortNames).toEqual(["bmm"]);
    expect(machines!.spec.versions[0]!.subresources).toBeUndefined();
    expect(render(result.kind, result.options)).toContain("kind: CustomResourceDefinition");
  });

  test("a definition two providers share (AddressPool: baremetal, vsphere) is printed once", () => {
    const registry = createRegistry([baremetalProviderFactory as never, vsphereProviderFactory as never]);
    expect(registry.customResources().map((crd) => crd.metadata.name)).toEqual([
      "addresspools.cloud-controller-manager.io",
      "baremetalmachines.cloud-controller-manager.io",
    ]);
    expect(registry.customResources("vsphere")).toHaveLength(1);
  });

  test("the bare-metal provider's ClusterRole reads BareMetalMachine objects (inventory: { source: cluster })", () => {
    const registry = createRegistry([baremetalProviderFactory as never]);
    const result = packageOptions(splitArgs(["rbac", "--cloud-provider=baremetal"], PACKAGE_FLAG_LIST), registry);
    if (!result.ok) throw new Error(result.errors.join("\n"));
    const roles = [Bun.YAML.parse(render(result.kind, result.options)) as Doc | Doc[]].flat() as unknown as {
      metadata: { name: string };
      rules?: { apiGroups: string[]; resources: string[]; verbs: string[] }[];
    }[];
    const own = roles.find((d) => d.metadata.name === "system:cloud-controller-manager:baremetal");
    expect(own?.rules).toContainEqual({
      apiGroups: ["cloud-controller-manager.io"],
      resources: ["baremetalmachines"],
      verbs: ["get", "list", "watch"],
    });
  });

  test("a provider without custom resources prints a comment", () => {
    expect(renderArgs(["crds", "--cloud-provider=fake"])).toBe("# this provider defines no custom resources\n");
  });
});

describe("rbac", () => {
  // kube-system exists in every cluster; any other Lease namespace is made first, or apply fails.
  const NS = (c: { namespace: string }) => ({ name: c.namespace, labels: { "app.kubernetes.io/name": NAME } });
  const cases = [
    { namespace: "kube-system", leaseName: "cloud-controller-manager", argv: [] },
    {
      namespace: "ccm-system",
      leaseName: "my-lease",
      argv: ["--leader-elect-resource-namespace=ccm-system", "--leader-elect-resource-name=my-lease"],
    },
  ];
  for (const c of cases) {
    test(`prints exactly rbacManifests() for ${c.namespace}/${c.leaseName}`, () => {
      const namespace = c.namespace === "kube-system" ? [] : [{ apiVersion: "v1", kind: "Namespace", metadata: NS(c) }];
      const want = [...namespace, ...rbacManifests(c)];
      expect(docs(["rbac", ...c.argv])).toEqual(JSON.parse(JSON.stringify(want)) as Doc[]);
    });
  }

  test("per-controller ServiceAccounts: bound to the bootstrap roles only outside kube-system", () => {
    const bindings = (ns: string) =>
      rbacManifests({ namespace: ns, leaseName: "l" }).filter((m) =>
        (m.roleRef as { name?: string } | undefined)?.name?.startsWith("system:controller:"),
      );
    expect(bindings("kube-system")).toEqual([]);
    expect(bindings("ccm-system").map((b) => [b.roleRef, b.subjects])).toEqual(
      ["node-controller", "service-controller", "route-controller"].map((name) => [
        { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: `system:controller:${name}` },
        [{ kind: "ServiceAccount", name, namespace: "ccm-system" }],
      ]),
    );
  });
});
