/**
 * The chart's values: each one's default (taken from the catalog and the flag table where the
 * `manifests` command has one), its JSON schema and one line for values.yaml and the values table.
 */
import { flagSpec } from "../../src/config/flags.ts";
import { CLOUD_CONFIG_SECRET } from "../../src/manifests/pods.ts";
import { catalogOptions, registry, workloadParts, type Obj } from "./catalog.ts";

export interface ChartValue {
  readonly name: string;
  readonly default: unknown;
  readonly schema: Obj;
  readonly description: string;
}

const flagDefault = (name: string): string => {
  const spec = flagSpec(name);
  if (!spec) throw new Error(`no flag --${name}`);
  return spec.default;
};

const text: Obj = { type: "string" };
const object = (properties: Obj): Obj => ({ type: "object", additionalProperties: false, properties });

export function chartValues(): ChartValue[] {
  const o = catalogOptions("daemonset");
  const { container, podSpec } = workloadParts();
  return [
    {
      name: "provider",
      default: "",
      schema: { type: "string", enum: ["", ...registry.names] },
      description: `Required: the cloud provider (--cloud-provider), one of ${registry.names.join(", ")}.`,
    },
    {
      name: "kind",
      default: "DaemonSet",
      schema: { type: "string", enum: ["DaemonSet", "Deployment"] },
      description: "DaemonSet: one leader-elected pod per control-plane node; Deployment: one replica.",
    },
    {
      name: "cloudConfig",
      default: "",
      schema: text,
      description: `The provider's cloud-config (--set-file cloudConfig=cloud.conf), stored in the Secret ${CLOUD_CONFIG_SECRET}.`,
    },
    {
      name: "existingSecret",
      default: "",
      schema: text,
      description: "A Secret of your own holding the cloud-config under the key cloud.conf; no Secret is made.",
    },
    {
      name: "image",
      default: { repository: "", tag: "", pullPolicy: container.imagePullPolicy },
      schema: object({ repository: text, tag: text, pullPolicy: { enum: ["Always", "IfNotPresent", "Never"] } }),
      description:
        "An image holding the executable at `binary` (tag defaults to the chart's appVersion). Empty repository: the host's executable runs in `baseImage`, as `manifests daemonset` does without --image.",
    },
    {
      name: "binary",
      default: o.binary,
      schema: text,
      description: "Path of the executable on the host, or inside the image (--binary).",
    },
    {
      name: "baseImage",
      default: o.baseImage,
      schema: text,
      description: "A glibc image the host's executable runs in when image.repository is empty (--base-image).",
    },
    {
      name: "controllers",
      default: flagDefault("controllers").split(","),
      schema: { type: "array", items: text },
      description: "Controllers to run (--controllers).",
    },
    {
      name: "leaderElection",
      default: {
        enabled: flagDefault("leader-elect") === "true",
        resourceName: o.config.leaderElection.resourceName,
      },
      schema: object({ enabled: { type: "boolean" }, resourceName: text }),
      description:
        "--leader-elect and the Lease's name (--leader-elect-resource-name); the Lease lives in the release namespace.",
    },
    {
      name: "securePort",
      default: o.config.serving.securePort,
      schema: { type: "integer", minimum: 1024, maximum: 65535 },
      description:
        "The secure port (--secure-port) the probes and the ServiceMonitor use too; 1024 or above (the pod runs as a non-root user).",
    },
    {
      name: "clusterCIDR",
      default: "",
      schema: text,
      description:
        "The cluster's pod CIDR range(s) (--cluster-cidr), e.g. 10.244.0.0/16; required while the route controller runs (upstream's --configure-cloud-routes=true default), which the install refuses without it; baremetal and vsphere offer no routes and need none.",
    },
    {
      name: "extraArgs",
      default: [],
      schema: { type: "array", items: { type: "string", pattern: "^--" } },
      description:
        "More manager flags, `--name=value` each (e.g. --configure-cloud-routes=false for a provider without routes).",
    },
    {
      name: "resources",
      default: container.resources,
      schema: { type: "object" },
      description: "The container's resources.",
    },
    {
      name: "affinity",
      default: podSpec.affinity,
      schema: { type: "object" },
      description:
        "Where the pods run: control-plane nodes, by the control-plane or (before 1.24) master role label, any value (k3s and RKE2 write true).",
    },
    {
      name: "nodeSelector",
      default: {},
      schema: { type: "object" },
      description: "Narrows the nodes further (none by default).",
    },
    {
      name: "tolerations",
      default: podSpec.tolerations,
      schema: { type: "array" },
      description:
        "Tolerates the uninitialized, control-plane (and master), CriticalAddonsOnly and not-ready taints, so it starts before any CNI and stays.",
    },
    {
      name: "serviceMonitor",
      default: { enabled: false, interval: "30s", labels: {} },
      schema: object({ enabled: { type: "boolean" }, interval: text, labels: { type: "object" } }),
      description:
        "A headless Service and a Prometheus Operator ServiceMonitor scraping /metrics over HTTPS with the scraper's token (it needs `get` on the non-resource URL /metrics).",
    },
  ];
}

export function valuesSchema(values: readonly ChartValue[]): Obj {
  return {
    $schema: "http://json-schema.org/draft-07/schema#",
    type: "object",
    additionalProperties: false,
    properties: Object.fromEntries(values.map((v) => [v.name, { ...v.schema, description: v.description }])),
  };
}

/** values.yaml: each value under its description. */
export function valuesYaml(values: readonly ChartValue[]): string {
  const header = "# Generated by `npm run chart` from the manifests catalog; edit scripts/chart/, not this file.\n";
  const blocks = values.map((v) => {
    const body = Bun.YAML.stringify({ [v.name]: v.default }, null, 2).trimEnd();
    return `# ${v.description}\n${body}\n`;
  });
  return [header, ...blocks].join("\n");
}

/** The chart's README: how to install it and the values table. */
export function chartReadme(values: readonly ChartValue[]): string {
  const rows = values.map((v) => `| \`${v.name}\` | \`${JSON.stringify(v.default)}\` | ${v.description} |`);
  return [
    "# cloud-controller-manager chart",
    "",
    "Generated by `npm run chart` from the catalog the `manifests` command prints; do not edit.",
    "",
    "```sh",
    "helm install ccm charts/cloud-controller-manager -n kube-system --set provider=aws --set clusterCIDR=10.244.0.0/16 --set-file cloudConfig=/etc/kubernetes/cloud.conf",
    "```",
    "",
    "| Value | Default | Meaning |",
    "|---|---|---|",
    ...rows,
    "",
  ].join("\n");
}
