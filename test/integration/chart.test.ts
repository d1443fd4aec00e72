/**
 * The Helm chart against the `manifests` command and the real kube-apiserver: `helm lint` passes,
 * `helm template` for every provider renders the same objects `manifests rbac` + `manifests daemonset`
 * (or `deployment`) print for the equivalent flags (after dropping helm's labels), `crds/` holds what
 * `manifests crds` prints, and the rendered objects pass a server-side dry run.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { applyObjects } from "../../scripts/control-plane/admin.ts";
import { CHART_DIR } from "../../scripts/chart/render.ts";
import { createRegistry } from "../../src/cloud/registry.ts";
import { providerFactories } from "../../src/builtins.ts";
import { runCommand } from "../../src/cli/run-cli.test-support.ts";
import { NAMESPACES } from "../../src/kube/api.ts";
import type { KubeObject } from "../../src/kube/objects.ts";
import { DEFAULTS } from "../../src/manifests/options.ts";
import { CLOUD_CONFIG_SECRET } from "../../src/manifests/pods.ts";
import { controlPlane } from "../harness/control-plane.ts";
import { uniqueName } from "../harness/fixtures.ts";
import { HELM_BUILD_TIMEOUT_MS, helm, helmBinary } from "../harness/helm.ts";

type Obj = Record<string, unknown>;

const PROVIDERS = createRegistry(providerFactories()).names;
const HELM_LABELS = ["app.kubernetes.io/instance", "app.kubernetes.io/managed-by", "helm.sh/chart"];
const CLOUD_CONFIG = "# a cloud-config; its content is the provider's business\n";

/** Helm's labels gone, empty lists and nulls dropped (a template's empty `volumes:` is null). */
function normalise(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalise);
  if (value === null || typeof value !== "object") return value;
  const entries = Object.entries(value as Obj)
    .filter(([, v]) => v !== null && !(Array.isArray(v) && v.length === 0))
    .map(([k, v]) => [k, k === "labels" ? withoutHelmLabels(v as Obj) : normalise(v)]);
  return Object.fromEntries(entries);
}

const withoutHelmLabels = (labels: Obj): Obj =>
  Object.fromEntries(Object.entries(labels).filter(([k]) => !HELM_LABELS.includes(k)));

const key = (o: KubeObject): string => `${o.kind}/${o.metadata.namespace ?? ""}/${o.metadata.name}`;

/** One object per key, sorted by key. */
function objectSet(objects: readonly KubeObject[]): KubeObject[] {
  const byKey = new Map(objects.map((o) => [key(o), normalise(o) as KubeObject]));
  return [...byKey.keys()].sort().map((k) => byKey.get(k)!);
}

const documents = (yaml: string): KubeObject[] =>
  ([Bun.YAML.parse(yaml)].flat() as (KubeObject | null)[]).filter((o): o is KubeObject => o !== null);

interface Variant {
  readonly name: string;
  readonly provider: string;
  readonly namespace: string;
  readonly kind: "DaemonSet" | "Deployment";
  readonly cloudConfig: boolean;
  readonly image?: { repository: string; tag: string };
  readonly controllers?: readonly string[];
  readonly leaderElect?: boolean;
  readonly securePort?: number;
}

const CLUSTER_CIDR = "10.244.0.0/16";

function helmArgs(v: Variant, cloudConfigFile: string): string[] {
  return [
    "template",
    "ccm",
    CHART_DIR,
    "--namespace",
    v.namespace,
    "--include-crds",
    "--set",
    `provider=${v.provider}`,
    "--set",
    `kind=${v.kind}`,
    "--set",
    `clusterCIDR=${CLUSTER_CIDR}`,
    ...(v.cloudConfig ? ["--set-file", `cloudConfig=${cloudConfigFile}`] : []),
    ...(v.image ? ["--set", `image.repository=${v.image.repository}`, "--set", `image.tag=${v.image.tag}`] : []),
    ...(v.controllers ? ["--set-json", `controllers=${JSON.stringify(v.controllers)}`] : []),
    ...(v.leaderElect === false ? ["--set", "leaderElection.enabled=false"] : []),
    ...(v.securePort ? ["--set", `securePort=${v.securePort}`] : []),
  ];
}

/** The flags `manifests` takes for what the values say, in the order the chart writes them. */
function manifestFlags(v: Variant): string[] {
  return [
    `--cloud-provider=${v.provider}`,
    ...(v.cloudConfig ? [`--cloud-config=${DEFAULTS.cloudConfig}`] : []),
    `--controllers=${(v.controllers ?? ["*"]).join(",")}`,
    `--leader-elect=${v.leaderElect ?? true}`,
    ...(v.namespace !== "kube-system" ? [`--leader-elect-resource-namespace=${v.namespace}`] : []),
    "--leader-elect-resource-name=cloud-controller-manager",
    `--cluster-cidr=${CLUSTER_CIDR}`,
    `--secure-port=${v.securePort ?? 10258}`,
    ...(v.image ? [`--image=${v.image.repository}:${v.image.tag}`] : []),
  ];
}

async function manifests(kind: string, flags: readonly string[]): Promise<KubeObject[]> {
  const result = await runCommand(["manifests", kind, ...flags]);
  if (result.code !== 0) throw new Error(`manifests ${kind} failed: ${result.err}`);
  return documents(result.out);
}

async function rendered(v: Variant): Promise<KubeObject[]> {
  const file = join(mkdtempSync(join(tmpdir(), "ccm-chart-")), "cloud.conf");
  writeFileSync(file, CLOUD_CONFIG);
  const result = await helm(helmArgs(v, file));
  if (result.status !== 0) throw new Error(`helm template failed: ${result.stderr}`);
  return documents(result.stdout);
}

const byProvider: Variant[] = PROVIDERS.map((provider) => ({
  name: `${provider}: DaemonSet, host binary, cloud-config from the value`,
  provider,
  namespace: "kube-system",
  kind: "DaemonSet",
  cloudConfig: true,
}));

const VARIANTS: Variant[] = [
  ...byProvider,
  {
    name: "baremetal: Deployment, an image, another namespace, no cloud-config, some controllers, no leader election",
    provider: "baremetal",
    namespace: "ccm-chart",
    kind: "Deployment",
    cloudConfig: false,
    image: { repository: "registry.local/ccm", tag: "v0.1.0" },
    controllers: ["cloud-node-controller", "service-lb-controller"],
    leaderElect: false,
    securePort: 10300,
  },
];

describe("helm chart", () => {
  beforeAll(() => helmBinary(), HELM_BUILD_TIMEOUT_MS);

  test("helm lint passes for every provider", async () => {
    for (const provider of PROVIDERS) {
      const result = await helm(["lint", CHART_DIR, "--strict", "--set", `provider=${provider}`]);
      expect({ provider, status: result.status, out: result.stdout }).toMatchObject({ provider, status: 0 });
    }
  }, 60_000);

  for (const v of VARIANTS) {
    test(`helm template = manifests: ${v.name}`, async () => {
      const chart = await rendered(v);
      const workload = v.kind === "DaemonSet" ? "daemonset" : "deployment";
      // The release namespace is helm's (-n, --create-namespace): the chart makes no Namespace object.
      const expected = [
        ...(await manifests("rbac", manifestFlags(v))),
        ...(await manifests(workload, manifestFlags(v))),
      ].filter((o) => o.kind !== "Namespace");
      const isCrd = (o: KubeObject): boolean => o.kind === "CustomResourceDefinition";
      const isSecret = (o: KubeObject): boolean => o.kind === "Secret";
      expect(objectSet(chart.filter((o) => !isCrd(o) && !isSecret(o)))).toEqual(objectSet(expected));
      expect(objectSet(chart.filter(isCrd))).toEqual(objectSet(await manifests("crds", [])));
      const secrets = chart.filter(isSecret) as (KubeObject & { data: Obj })[];
      expect(secrets.map((s) => ({ name: s.metadata.name, data: s.data }))).toEqual(
        v.cloudConfig ? [{ name: CLOUD_CONFIG_SECRET, data: { "cloud.conf": btoa(CLOUD_CONFIG) } }] : [],
      );
    }, 60_000);
  }

  test("existingSecret: no Secret rendered, the pod mounts the named one", async () => {
    const result = await helm([
      "template",
      "ccm",
      CHART_DIR,
      "--set",
      "provider=aws",
      "--set",
      `clusterCIDR=${CLUSTER_CIDR}`,
      "--set",
      "existingSecret=mine",
    ]);
    expect(result.status).toBe(0);
    const objects = documents(result.stdout);
    expect(objects.filter((o) => o.kind === "Secret")).toEqual([]);
    expect(result.stdout).toContain("secretName: mine\n");
    expect(result.stdout).toContain(`"--cloud-config=${DEFAULTS.cloudConfig}"`);
  }, 60_000);

  test("serviceMonitor.enabled adds a headless Service and a ServiceMonitor on the https port", async () => {
    const result = await helm([
      "template",
      "ccm",
      CHART_DIR,
      "--set",
      "provider=fake",
      "--set",
      `clusterCIDR=${CLUSTER_CIDR}`,
      "--set",
      "serviceMonitor.enabled=true",
    ]);
    expect(result.status).toBe(0);
    const objects = documents(result.stdout);
    expect(objects.filter((o) => o.kind === "Service" || o.kind === "ServiceMonitor").map((o) => o.kind)).toEqual([
      "Service",
      "ServiceMonitor",
    ]);
  }, 60_000);

  test("routes on without clusterCIDR: the install fails naming it; routes off needs none", async () => {
    const base = ["template", "ccm", CHART_DIR, "--set", "provider=aws"];
    const refused = await helm(base);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain("clusterCIDR: the node-route-controller needs the cluster's pod CIDR range(s)");
    expect((await helm([...base, "--set-json", 'extraArgs=["--configure-cloud-routes=false"]'])).status).toBe(0);
    expect((await helm([...base, "--set-json", 'controllers=["*","-route"]'])).status).toBe(0);
    // A provider that never offers routes starts no route controller, so it needs no clusterCIDR.
    for (const provider of ["baremetal", "vsphere"]) {
      const rendered = await helm(["template", "ccm", CHART_DIR, "--set", `provider=${provider}`]);
      expect({ provider, status: rendered.status, err: rendered.stderr }).toMatchObject({ provider, status: 0 });
    }
  }, 60_000);

  test("values outside the schema are refused (kind, provider)", async () => {
    const badKind = await helm(["template", "ccm", CHART_DIR, "--set", "provider=fake", "--set", "kind=StatefulSet"]);
    expect(badKind.status).not.toBe(0);
    expect(badKind.stderr).toContain("kind");
    const badProvider = await helm(["template", "ccm", CHART_DIR, "--set", "provider=gce"]);
    expect(badProvider.status).not.toBe(0);
    expect(badProvider.stderr).toContain("provider");
  }, 60_000);

  describe("server-side dry run against the real kube-apiserver", () => {
    for (const v of VARIANTS) {
      test(
        v.name,
        async () => {
          const cp = await controlPlane();
          const namespace = v.namespace === "kube-system" ? v.namespace : uniqueName(v.namespace);
          if (namespace !== "kube-system")
            await cp.admin.create(NAMESPACES, { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
          const objects = await rendered({ ...v, namespace });
          await applyObjects(cp.admin, objects, { dryRun: true });
        },
        60_000,
      );
    }
  });
});
